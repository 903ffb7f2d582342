// read_git_diff (docs/tools.md; docs/tools.md, What is indexed): one `diff` item per hunk of the working tree
// (or the index, with `staged`) against a base commit (default HEAD).
//
// git runs read-only: execFile with a fixed argument list (never a shell), no
// pager, no external diff, no textconv, no fsmonitor, no clean/smudge/process
// filter (see filterOverrides), no optional locks and no
// diff.autoRefreshIndex (so .git/index is never rewritten), no transports (a
// partial clone must not fetch), and an environment with every GIT_* variable
// of the caller removed.
// The caller's `base` is only ever passed to `rev-parse --verify` after
// `--end-of-options`; the diff itself gets the verified commit id.
//
// Secrets and ignored files never reach the output: the changed paths are
// listed first (-z, exact names), filtered by the rules, and only the survivors
// are diffed, as literal pathspecs. Every parsed hunk is then checked again
// against that list, so a parsing slip cannot attribute text to a wrong path.
//
// Untracked files (git ls-files --others --exclude-standard) are new files
// to a person asking "what did I change": each one the index holds as text
// is one new-file hunk (`@@ -0,0 +1,N @@`, every line added), its text
// taken from the index — so whatever the index left out (ignored, secret,
// binary, over the size cap) never shows — unless `untracked: false`, and
// never with `staged` (the index of git holds no untracked file).
import type { RepoRules } from '../discover/rules.js';
import { ToolError } from '../errors.js';
import { gitEnv, runGit } from '../../local/git.js';
import { capSnippet, type Evidence } from '../evidence.js';
import { normalizeCallerPath } from './caller-paths.js';
import { decodeText } from '../text.js';
import type { ToolArgs } from './schemas.js';

const GIT_TIMEOUT_MS = 30_000;
const GIT_MAX_BUFFER = 64 * 1024 * 1024;
/** Pathspecs per git invocation are capped by total length, far below any ARG_MAX. */
const PATHSPEC_CHUNK_CHARS = 64 * 1024;

/** Options before the subcommand: each closes a door a repository's config could open. */
const GIT_GLOBAL_ARGS = [
  '--no-pager',
  '-c', 'core.fsmonitor=false', // a configured fsmonitor hook is a program git would run
  '-c', 'core.quotepath=off',   // non-ASCII names as raw UTF-8, not octal escapes
  '-c', 'diff.external=',
  '-c', 'protocol.allow=never', // no transport at all: a partial clone must not fetch missing blobs
  '--no-optional-locks',        // no opportunistic index refresh (git status & co)...
  // ...but `git diff` refreshes .git/index after finding stat-only changes even
  // with --no-optional-locks (seen with git 2.39; a test pins it): turn that off.
  '-c', 'diff.autoRefreshIndex=false',
];

/**
 * Config settings that switch off every filter driver the repository's config
 * (any scope) defines. .gitattributes maps files to drivers, and git runs a
 * driver's clean or process command whenever it hashes a work-tree file for a
 * diff; git has no switch that turns attributes or filters off as a whole, so
 * each configured driver is emptied (an empty command is no filter) and made
 * optional (a required filter that does not run is an error). The diff then
 * shows the file as it is on disk, which is what the evidence's lines are.
 *
 * They travel as GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n, not
 * as `-c key=value`, which git splits at the first "=" (a driver named "a=b"
 * would escape). A driver name that is not UTF-8 cannot be written into the
 * environment at all, so such a repository is refused rather than diffed.
 */
async function filterOverrides(root: string): Promise<Record<string, string>> {
  const r = await diffGit(root, ['config', '--null', '--get-regexp', '^filter\\.']);
  if (r.code === 1) return {}; // no such key
  if (r.code !== 0) throw new ToolError('git_failed', `git config failed: ${firstLine(r.stderr)}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(r.stdout);
  } catch {
    throw new ToolError('git_failed', 'the git config names a filter driver that is not UTF-8; read_git_diff cannot switch it off, so it does not run git diff');
  }
  const drivers = new Set<string>();
  for (const entry of text.split('\0')) {
    const key = entry.split('\n', 1)[0];
    // filter.<driver>.<variable>; a driver name may itself hold dots.
    const driver = key.slice('filter.'.length, key.lastIndexOf('.'));
    if (key.startsWith('filter.') && driver !== '') drivers.add(driver);
  }
  return gitConfigEnv([...drivers].flatMap((d): Array<[string, string]> => [
    ...['clean', 'smudge', 'process'].map((v): [string, string] => [`filter.${d}.${v}`, '']),
    [`filter.${d}.required`, 'false'],
  ]));
}

/** Config settings as the GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n variables (any key, "=" included). */
export function gitConfigEnv(settings: ReadonlyArray<[string, string]>): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach(([k, v], i) => { env[`GIT_CONFIG_KEY_${i}`] = k; env[`GIT_CONFIG_VALUE_${i}`] = v; });
  return env;
}

/** Diff options shared by the listing and the patch, so both see exactly the same set of changes. */
function diffArgs(staged: boolean): string[] {
  return [
    'diff', '--no-ext-diff', '--no-textconv', '--no-color', '--no-renames',
    '--relative',                  // paths (and pathspecs) relative to the root, even when it is a subfolder of the work tree
    '--ignore-submodules=all',     // a submodule's "Subproject commit" lines are not file content
    ...(staged ? ['--cached'] : []),
  ];
}

/** Set over the caller's environment, from which every GIT_* variable (GIT_DIR, GIT_INDEX_FILE, GIT_EXTERNAL_DIFF...) is removed. */
const GIT_SETTINGS = {
  GIT_PAGER: 'cat',
  GIT_OPTIONAL_LOCKS: '0',
  GIT_LITERAL_PATHSPECS: '1', // a path like ":(glob)**" is a file name, not pathspec magic
  GIT_TERMINAL_PROMPT: '0',
  GIT_NO_LAZY_FETCH: '1',
  LC_ALL: 'C',                // stable English messages to classify errors
};
/** The caller's pager and locale go too (the messages are classified in English). */
const dropVar = (k: string): boolean => k === 'PAGER' || k.startsWith('LC_') || k === 'LANG' || k === 'LANGUAGE';

interface GitRun { code: number; stdout: Buffer; stderr: string }

/**
 * Runs git with the fixed options; `config` adds GIT_CONFIG_* settings (see
 * filterOverrides). git's own answer, failure codes included, comes back;
 * git missing, too much output or no end in time is a refusal.
 */
async function diffGit(cwd: string, args: string[], config: Record<string, string> = {}): Promise<GitRun> {
  const r = await runGit(cwd, args, {
    globalArgs: GIT_GLOBAL_ARGS,
    env: gitEnv({ drop: dropVar, set: { ...GIT_SETTINGS, ...config } }),
    timeoutMs: GIT_TIMEOUT_MS,
    maxBuffer: GIT_MAX_BUFFER,
  });
  switch (r.kind) {
    case 'exited': return { code: r.code, stdout: r.stdout, stderr: decodeText(r.stderr).trim() };
    case 'missing': throw new ToolError('git_failed', 'git is not installed or not on PATH');
    case 'too_large': throw new ToolError('git_failed', `the diff is larger than ${GIT_MAX_BUFFER >> 20} MiB; narrow it with "path"`);
    case 'timed_out': throw new ToolError('git_failed', `git did not finish within ${GIT_TIMEOUT_MS / 1000} s`);
  }
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '')?.trim() ?? 'no message';
}

async function ensureWorkTree(root: string): Promise<void> {
  const r = await diffGit(root, ['rev-parse', '--is-inside-work-tree']);
  if (r.code === 0 && decodeText(r.stdout).trim() === 'true') return;
  if (r.code === 0 || /not a git repository/i.test(r.stderr)) {
    throw new ToolError('not_a_git_repo', 'the repository root is not inside a git work tree');
  }
  throw new ToolError('git_failed', `git rev-parse failed: ${firstLine(r.stderr)}`);
}

/** The caller's `base` when git may see it: a ref starting with "-" could be read as an option, so it is refused before git runs. */
function checkedBase(base: string | undefined): string | undefined {
  if (base !== undefined && base.startsWith('-')) throw new ToolError('bad_ref', `base ${JSON.stringify(base)} may not start with "-"`);
  return base;
}

/** The commit (or, with no commits yet and no base, the empty tree) to diff against. `base` has passed checkedBase. */
async function resolveBase(root: string, base: string | undefined): Promise<string> {
  if (base !== undefined) {
    const r = await diffGit(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${base}^{commit}`]);
    const id = decodeText(r.stdout).trim();
    if (r.code !== 0 || !/^[0-9a-f]{40,64}$/.test(id)) {
      throw new ToolError('bad_ref', `base ${JSON.stringify(base)} is not a commit in this repository`);
    }
    return id;
  }
  const head = await diffGit(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  const id = decodeText(head.stdout).trim();
  if (head.code === 0 && /^[0-9a-f]{40,64}$/.test(id)) return id;
  // No commit yet: everything tracked is new, which is a diff against the empty
  // tree. hash-object without -w only computes the id (sha1 or sha256 repo alike).
  const empty = await diffGit(root, ['hash-object', '-t', 'tree', '/dev/null']);
  const tree = decodeText(empty.stdout).trim();
  if (empty.code !== 0 || !/^[0-9a-f]{40,64}$/.test(tree)) {
    throw new ToolError('git_failed', `cannot compute the empty tree: ${firstLine(empty.stderr)}`);
  }
  return tree;
}

/** Undoes git's C-style quoting of a path ("a\tb", "\303\251" as octal bytes, \" and \\). */
export function unquoteCPath(quoted: string): string {
  if (!(quoted.startsWith('"') && quoted.endsWith('"') && quoted.length >= 2)) return quoted;
  const body = quoted.slice(1, -1);
  const bytes: number[] = [];
  const simple: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };
  const enc = new TextEncoder();
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      // Copy one whole code point (a surrogate pair stays together).
      const cp = body.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...enc.encode(ch));
      i += ch.length - 1;
      continue;
    }
    const n = body[i + 1];
    if (n !== undefined && /[0-7]/.test(n)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8) & 0xff);
      i += 3;
    } else if (n !== undefined && n in simple) {
      bytes.push(simple[n]);
      i += 1;
    } else {
      bytes.push(92);
    }
  }
  return decodeText(Uint8Array.from(bytes));
}

/** The path in a `--- a/x` / `+++ b/x` line, without its prefix; null for /dev/null. */
function headerPath(rest: string, prefix: 'a/' | 'b/'): string | null {
  // git appends a tab after a name containing a space (for patch(1)), quoted or not: a name with a
  // space and a character git quotes ("a\nb c") comes as `"a/a\nb c"<TAB>`.
  const name = rest.endsWith('\t') ? rest.slice(0, -1) : rest;
  let p: string;
  if (name.startsWith('"')) p = unquoteCPath(name);
  else {
    p = name;
    if (p === '/dev/null') return null;
  }
  if (!p.startsWith(prefix)) throw new ToolError('git_failed', `unexpected diff header path ${JSON.stringify(rest)}`);
  return p.slice(prefix.length);
}

export interface Hunk { path: string; newStart: number; newCount: number; text: string }

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Splits `git diff` output (explicit a/ and b/ prefixes, no renames, no
 * combined diffs) into hunks. Hunk bodies are consumed by the line counts in
 * their headers, so no content line can be mistaken for a header.
 */
export function parseUnifiedDiff(text: string): Hunk[] {
  const lines = text.split('\n');
  const hunks: Hunk[] = [];
  let oldPath: string | null = null;
  let newPath: string | null = null;
  let inSection = false;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.startsWith('diff --git ')) {
      inSection = true; oldPath = null; newPath = null; i++; continue;
    }
    if (line.startsWith('diff --cc ') || line.startsWith('diff --combined ')) {
      // Only `git diff` without a commit produces combined diffs; we always pass one.
      throw new ToolError('git_failed', 'unexpected combined diff in git output');
    }
    if (inSection && line.startsWith('--- ')) { oldPath = headerPath(line.slice(4), 'a/'); i++; continue; }
    if (inSection && line.startsWith('+++ ')) { newPath = headerPath(line.slice(4), 'b/'); i++; continue; }
    const m = HUNK_HEADER.exec(line);
    if (inSection && m) {
      const path = newPath ?? oldPath;
      if (path === null) throw new ToolError('git_failed', 'diff hunk without file header in git output');
      let oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      let newLeft = m[4] === undefined ? 1 : Number(m[4]);
      const body = [line];
      i++;
      while (oldLeft > 0 || newLeft > 0) {
        const l = lines[i];
        if (l === undefined) throw new ToolError('git_failed', `truncated hunk in git output for ${path}`);
        const c = l[0];
        // '' is an empty context line when diff.suppressBlankEmpty is set.
        if (c === ' ' || l === '') { oldLeft--; newLeft--; }
        else if (c === '+') newLeft--;
        else if (c === '-') oldLeft--;
        else if (c !== '\\') throw new ToolError('git_failed', `malformed hunk line in git output for ${path}`);
        body.push(l);
        i++;
      }
      while (lines[i]?.startsWith('\\')) body.push(lines[i++]); // "\ No newline at end of file"
      hunks.push({ path, newStart: Number(m[3]), newCount: m[4] === undefined ? 1 : Number(m[4]), text: body.join('\n') });
      continue;
    }
    i++; // index/mode/new file/deleted file/Binary files lines, "* Unmerged path": nothing to report
  }
  return hunks;
}

function chunkPaths(paths: string[]): string[][] {
  const chunks: string[][] = [];
  let cur: string[] = [];
  let size = 0;
  for (const p of paths) {
    if (cur.length > 0 && size + p.length + 1 > PATHSPEC_CHUNK_CHARS) { chunks.push(cur); cur = []; size = 0; }
    cur.push(p);
    size += p.length + 1;
  }
  if (cur.length > 0) chunks.push(cur);
  return chunks;
}

/** An untracked file's text as the index holds it (so vetted: not ignored, not secret, text, under the size cap), or null when the index does not hold it. */
export type IndexedText = (path: string) => string | null;

/** The hunk git would show for a new file holding `text` (lines split at "\n", as indexed). */
export function newFileHunk(path: string, text: string): Hunk {
  const lines = text.split('\n');
  const range = lines.length === 1 ? '1' : `1,${lines.length}`;
  return { path, newStart: 1, newCount: lines.length, text: [`@@ -0,0 +${range} @@`, ...lines.map((l) => `+${l}`)].join('\n') };
}

/** One new-file hunk per untracked, non-ignored file under `pathspec` that the index holds as text (an empty one has none, as in git). */
async function untrackedHunks(root: string, pathspec: string, rules: RepoRules, indexedText: IndexedText): Promise<Hunk[]> {
  const r = await diffGit(root, ['ls-files', '--others', '--exclude-standard', '-z', '--', ...(pathspec ? [pathspec] : [])]);
  if (r.code !== 0) throw new ToolError('git_failed', `git ls-files failed: ${firstLine(r.stderr)}`);
  const hunks: Hunk[] = [];
  for (const p of decodeText(r.stdout).split('\0')) {
    if (p === '' || rules.isSecret(p) || rules.isKnownSecretFile(p) || rules.isIgnored(p, false)) continue;
    const text = indexedText(p);
    if (text !== null && text !== '') hunks.push(newFileHunk(p, text));
  }
  return hunks;
}

/**
 * The hunks of the working tree (or index) against the base, as evidence
 * sorted by (path, line). `indexedText` gives untracked files' text (the
 * daemon passes its index's); without it, untracked files are left out.
 */
export async function readGitDiff(root: string, args: ToolArgs['read_git_diff'], rules: RepoRules, indexedText?: IndexedText): Promise<Evidence[]> {
  const staged = args.staged ?? false;
  // Argument checks first: a refused path or ref is refused whatever the repository.
  const pathspec = args.path === undefined ? '' : normalizeCallerPath(rules, args.path, { allowRoot: true });
  const asked = checkedBase(args.base);
  await ensureWorkTree(root);
  const base = await resolveBase(root, asked);
  const noFilters = await filterOverrides(root);

  const listed = await diffGit(root, [...diffArgs(staged), '--name-only', '-z', base, '--', ...(pathspec ? [pathspec] : [])], noFilters);
  if (listed.code !== 0) throw new ToolError('git_failed', `git diff failed: ${firstLine(listed.stderr)}`);
  const allowed = decodeText(listed.stdout).split('\0').filter((p) => p !== '')
    .filter((p) => !rules.isSecret(p) && !rules.isKnownSecretFile(p) && !rules.isIgnored(p, false));
  const allowedSet = new Set(allowed);

  const hunks: Hunk[] = [];
  for (const chunk of chunkPaths(allowed)) {
    const r = await diffGit(root, [...diffArgs(staged), '--src-prefix=a/', '--dst-prefix=b/', base, '--', ...chunk], noFilters);
    if (r.code !== 0) throw new ToolError('git_failed', `git diff failed: ${firstLine(r.stderr)}`);
    hunks.push(...parseUnifiedDiff(decodeText(r.stdout)));
  }
  for (const h of hunks) {
    if (!allowedSet.has(h.path)) {
      throw new ToolError('git_failed', `git diff output names ${JSON.stringify(h.path)}, which was not asked for`);
    }
  }
  if (indexedText && !staged && args.untracked !== false) hunks.push(...await untrackedHunks(root, pathspec, rules, indexedText));

  const items: Evidence[] = [];
  for (const h of hunks) {
    // New-file range; a pure deletion (count 0) is placed at the line it follows (at least 1).
    const start = Math.max(h.newStart, 1);
    const end = h.newCount === 0 ? start : h.newStart + h.newCount - 1;
    const { snippet, truncated } = capSnippet(h.text);
    const item: Evidence = { path: h.path, start_line: start, end_line: end, kind: 'diff', name: h.path, snippet };
    if (truncated) item.truncated = true;
    items.push(item);
  }
  items.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.start_line - b.start_line));
  return items;
}
