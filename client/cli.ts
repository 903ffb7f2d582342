// evidex — the thin CLI. Every command that needs the index talks to the
// repository's daemon (starting it when none runs), except `evidex index` with
// no daemon running, which builds in-process so its progress can be shown.
// Exit codes: 0 ok, 2 refused (usage error, tool refusal), 1 anything else
// (client/errors.ts decides which).
//
// A call to a running daemon must cost little more than starting Node, so this
// file loads only the argument parser, the error mapping, the formatter, the
// protocol's message definitions and the tools' import-free bounds
// (indexer/query/limits.ts); each command imports what it needs when it runs
// (the connection and protocol/ws-client.ts for a tool call; the indexer, zod
// or the Ollama side only for the commands that use them).
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { READ_MAX_LINES } from '../indexer/query/limits.js';
import { Methods, Notifications, type BuildSummary, type IndexProgressParams, type ToolResult } from '../protocol/messages.js';
import { parseArgs, describeFlags, UsageError, type FlagSpecs, type Parsed } from './args.js';
import { EXIT_REFUSED, Refusal, userError } from './errors.js';
import { formatEvidence, formatFooter, formatTsImports, type FormatOptions } from './format.js';
import type { Client } from './connection.js';

const REPO: FlagSpecs = { repo: { kind: 'string', value: 'DIR', help: 'repository root (default: git top-level of the current folder, else the folder)' } };
const JSON_FLAG: FlagSpecs = { json: { kind: 'boolean', help: 'print JSON for scripts instead of text' } };
const HELP: FlagSpecs = { help: { kind: 'boolean', help: 'show this help' } };
const COLOR: FlagSpecs = { color: { kind: 'string', value: 'WHEN', choices: ['auto', 'always', 'never'], help: 'colour paths, line numbers and matches: auto (a terminal without NO_COLOR), always, never' } };
/** The paging arguments of every list tool, and the flags' values as tool arguments. */
const PAGE: FlagSpecs = {
  limit: { kind: 'int', help: 'items to show (1-200, default 20)' },
  offset: { kind: 'int', help: 'skip this many items first (default 0): --offset 20 is the second page' },
};
const PATH_PREFIX: FlagSpecs = { 'path-prefix': { kind: 'string', value: 'P', path: true, help: 'only paths starting with P (relative to the current folder)' } };
const pageArgs = (p: Parsed): Record<string, unknown> => ({ limit: p.flags.limit, offset: p.flags.offset });

interface Command {
  usage: string;
  summary: string;
  /** More of what --help shows: what the command does in detail, and examples. */
  details?: string;
  flags: FlagSpecs;
  run(p: Parsed): Promise<number>;
}

/** The command name the CLI names itself with to the daemon (its log and audit). */
const CLIENT_NAME = 'cli';

async function repoOf(p: Parsed): Promise<string> {
  const { resolveRepoRoot } = await import('../daemon/state.js');
  const repo = p.flags.repo as string | undefined;
  return resolveRepoRoot(repo ?? gitTopLevel(process.cwd(), process.env) ?? undefined);
}

/**
 * The work tree holding `cwd` as git finds it — the nearest folder, from
 * `cwd` up, with a `.git` entry (a folder, or the file of a linked work tree
 * or submodule) — without starting git, which costs a CLI call more than
 * anything but Node itself. Null, so that git is asked after all, when git's
 * environment steers its discovery or no `.git` is found.
 */
export function gitTopLevel(cwd: string, env: NodeJS.ProcessEnv): string | null {
  if (env.GIT_DIR || env.GIT_WORK_TREE || env.GIT_CEILING_DIRECTORIES) return null;
  let dir: string;
  try { dir = realpathSync(cwd); } catch { return null; }
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** No --repo: the root is the current folder's, and starting to index it may be refused (index-guard.ts). */
const unnamedRoot = (p: Parsed): boolean => p.flags.repo === undefined;

function needPositionals(p: Parsed, n: number, usage: string): void {
  if (p.positionals.length !== n) throw new UsageError(`${n === 0 ? 'takes no arguments' : `expected ${n === 1 ? 'one argument' : `${n} arguments`}`}; usage: ${usage}`);
}

/**
 * A path typed on the command line, as the tools take it: relative to the
 * root. Taken relative to the current folder when that lies inside the root
 * (as every shell tool does), else relative to the root; an absolute path
 * inside the root is made relative to it. What escapes the root is passed on
 * as such, so the daemon refuses it with its own code (path_denied).
 */
export function rootRelative(root: string, arg: string, cwd: string = process.cwd()): string {
  let here = cwd;
  try { here = realpathSync(cwd); } catch { /* a deleted folder: keep it as given */ }
  const inside = (p: string) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
  if (!isAbsolute(arg) && !inside(here)) return arg;
  const abs = resolve(here, arg);
  if (isAbsolute(arg) && !inside(abs)) return arg;
  const rel = relative(root, abs).split(sep).join('/');
  // A folder (`--path-prefix .` in src/, or `src/`) means what is inside it, not every path starting with "src".
  return rel !== '' && !rel.startsWith('..') && (/[/\\]$/.test(arg) || isFolder(abs)) ? `${rel}/` : rel;
}

function isFolder(path: string): boolean {
  try { return statSync(path).isDirectory(); } catch { return false; }
}

/** Opens a connection to the root's daemon (starting one), runs `fn`, closes it. */
async function withDaemon<T>(root: string, p: Parsed, fn: (c: Client) => Promise<T>, clientName: string = CLIENT_NAME): Promise<T> {
  const { connect } = await import('./connection.js');
  const client = await connect(root, { autoStart: true, clientName, unnamedRoot: unnamedRoot(p) });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

function useColor(p: Parsed, env: NodeJS.ProcessEnv = process.env): boolean {
  const when = (p.flags.color as string | undefined) ?? 'auto';
  if (when !== 'auto') return when === 'always';
  return Boolean(process.stdout.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
}

function printResult(r: ToolResult, p: Parsed, fmt: FormatOptions): void {
  if (p.flags.json) {
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return;
  }
  if (r.evidence.length) process.stdout.write(`${formatEvidence(r.evidence, { ...fmt, color: useColor(p) })}\n`);
  process.stderr.write(`${formatFooter(r)}\n`);
}

interface ToolCommandSpec {
  tool: string;
  usage: string;
  summary: string;
  details?: string;
  flags: FlagSpecs;
  /** The tool's arguments from the command line; `path` turns a path argument root-relative. */
  build(p: Parsed, path: (arg: string) => string): Record<string, unknown>;
  /** How the text output looks (highlight, bodies). */
  format?(p: Parsed): FormatOptions;
  /** Makes the call (default: one tools/call); `read` makes several to print a file whole. */
  call?(client: Client, args: Record<string, unknown>, p: Parsed): Promise<ToolResult>;
  /** Runs after the call, on the same connection: a note printed below the answer (read's "more follows"). */
  after?(r: ToolResult, args: Record<string, unknown>, client: Client): Promise<string | null>;
}

const callTool = (client: Client, tool: string, args: Record<string, unknown>) =>
  client.request(Methods.toolsCall, { name: tool, arguments: defined(args) });

/** A friendly command = one tool call built from flags; the daemon still validates it strictly. */
function toolCommand(s: ToolCommandSpec): Command {
  const flags: FlagSpecs = { ...s.flags, ...REPO, ...JSON_FLAG, ...COLOR, ...HELP };
  return {
    usage: s.usage, summary: s.summary, details: s.details, flags,
    async run(p) {
      const root = await repoOf(p);
      const path = (arg: string) => rootRelative(root, arg);
      const args = s.build(p, path);
      // Path flags are converted here, so a command adding one (`path: true`) needs nothing more.
      for (const [name, spec] of Object.entries(flags)) {
        const arg = name.replace(/-/g, '_');
        // The root itself as a prefix keeps everything: no prefix at all.
        if (spec.path && typeof args[arg] === 'string') args[arg] = path(args[arg] as string) || undefined;
      }
      await withDaemon(root, p, async (client) => {
        const r = await (s.call ? s.call(client, args, p) : callTool(client, s.tool, args));
        printResult(r, p, s.format?.(p) ?? {});
        const note = p.flags.json ? null : await s.after?.(r, args, client);
        if (note) process.stderr.write(`${note}\n`);
      });
      return 0;
    },
  };
}

type ModelRunner = (client: Client, args: string[], opts: {
  model?: string; json: boolean; out: NodeJS.WriteStream; err: NodeJS.WriteStream; repeat?: number;
}) => Promise<number>;

/** `ask`, `chat` and `eval`: an optional --model, run over a daemon connection that names itself `clientName`. */
function modelCommand(usage: string, summary: string, clientName: string, positionals: number, runner: () => Promise<ModelRunner>, extra: FlagSpecs = {}): Command {
  return {
    usage, summary,
    flags: { model: { kind: 'string', value: 'M', help: 'Ollama model (default $EVIDEX_MODEL, else qwen3:8b)' }, ...extra, ...REPO, ...HELP },
    async run(p) {
      needPositionals(p, positionals, usage);
      const run = await runner();
      return withDaemon(await repoOf(p), p, (client) => run(client, p.positionals, {
        model: p.flags.model as string | undefined, json: Boolean(p.flags.json), out: process.stdout, err: process.stderr,
        ...(p.flags.repeat !== undefined ? { repeat: p.flags.repeat as number } : {}),
      }), clientName);
    },
  };
}

function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/**
 * `PATH[:START[-END]]` → read_evidence arguments. A bare PATH reads the file
 * from line 1, as much as one call returns (READ_MAX_LINES).
 */
export function parseReadTarget(target: string): { path: string; start_line: number; end_line?: number } {
  const m = /^(.*?):(\d+)(?:-(\d+))?$/.exec(target);
  if (!m) return { path: target, start_line: 1, end_line: READ_MAX_LINES };
  const start = Number(m[2]);
  const end = m[3] === undefined ? undefined : Number(m[3]);
  return { path: m[1], start_line: start, end_line: end };
}

/**
 * read_evidence, with the lines a snippet's character cap cut off read on in
 * further calls, so the text output holds every line asked for. The result
 * is one `source` item over the whole span; a single line longer than the cap
 * stays cut (and flagged).
 */
async function readWhole(client: Client, args: Record<string, unknown>): Promise<ToolResult> {
  const first = await callTool(client, 'read_evidence', args);
  const e = first.evidence[0];
  if (!e?.truncated) return first;
  const lines: string[] = [];
  let cut = false;
  for (let item = e; ;) {
    const got = item.snippet.split('\n');
    // A cut snippet ends inside its last line: that line is read again from its start.
    if (item.truncated && got.length > 1) got.pop();
    else if (item.truncated) cut = true;
    lines.push(...got);
    const next = e.start_line + lines.length;
    if (next > e.end_line) break;
    item = (await callTool(client, 'read_evidence', { path: e.path, start_line: next, end_line: e.end_line })).evidence[0];
  }
  const { truncated: _, ...whole } = e;
  return { ...first, evidence: [{ ...whole, snippet: lines.join('\n'), ...(cut ? { truncated: true as const } : {}) }] };
}

/** Whether line `line` of `path` exists: the way to know a read stopped at the cap, not at the end of the file. */
async function hasLine(client: Client, path: string, line: number): Promise<boolean> {
  try {
    await client.request(Methods.toolsCall, { name: 'read_evidence', arguments: { path, start_line: line } });
    return true;
  } catch {
    return false;
  }
}

/** `evidex index`: a refresh with a progress line; Ctrl-C leaves a clean line and exits 130. */
async function runIndex(p: Parsed): Promise<number> {
  const root = await repoOf(p);
  const json = Boolean(p.flags.json);
  const [{ ProgressLine }, { buildInProcess, DaemonBusy }] = await Promise.all([import('./progress.js'), import('./index-command.js')]);
  const bar = new ProgressLine(process.stderr, json);
  // The default SIGINT exit would leave the progress line half drawn under the prompt.
  // An interrupted build is safe: the index is crash-safe, and the next run resumes it.
  // Then the process dies of the signal itself, as the shell expects of Ctrl-C (status 130):
  // a normal exit would tear down the parser threads mid-call, which aborts in native code.
  const onInterrupt = () => {
    bar.done();
    process.stderr.write('evidex: interrupted; the index is left as it was or partly refreshed, and `evidex index` resumes it\n');
    process.kill(process.pid, 'SIGINT');
  };
  process.once('SIGINT', onInterrupt);
  const t0 = Date.now();
  let summary: BuildSummary & { generation: number; indexBytes?: number; via: 'daemon' | 'in-process' };
  try {
    try {
      summary = { ...await buildInProcess(root, (pr) => bar.update(pr), { unnamedRoot: unnamedRoot(p) }), via: 'in-process' };
    } catch (e) {
      if (!(e instanceof DaemonBusy)) throw e;
      // A daemon owns this root's index: ask it to refresh and show its progress.
      const { connect } = await import('./connection.js');
      const client = await connect(root, { autoStart: false, clientName: CLIENT_NAME });
      try {
        client.onNotification((method, params) => {
          if (method === Notifications.indexProgress) bar.update((params as IndexProgressParams).progress);
        });
        summary = { ...await client.request(Methods.indexRefresh), via: 'daemon' };
      } finally {
        await client.close();
      }
    }
  } finally {
    bar.done();
    process.off('SIGINT', onInterrupt);
  }
  if (json) {
    process.stdout.write(`${JSON.stringify({ root, ...summary })}\n`);
  } else {
    const s = summary;
    process.stdout.write(
      `indexed ${root} (${s.via})\n`
      + `  files   ${s.files} (${s.parsed} parsed, ${s.unchanged} unchanged, ${s.removed} removed)\n`
      + `  symbols ${s.symbols}\n  imports ${s.imports}\n`
      + (formatTsImports(s.tsImports) !== null ? `  ts/js   ${formatTsImports(s.tsImports)}\n` : '')
      + `  lines   ${s.lines}\n`
      + (s.indexBytes !== undefined ? `  index   ${(s.indexBytes / 1048576).toFixed(1)} MiB\n` : '')
      + `  seconds ${s.seconds.toFixed(2)} (wall ${((Date.now() - t0) / 1000).toFixed(2)})\n`,
    );
  }
  return 0;
}

const COMMANDS: Record<string, Command> = {
  index: {
    usage: 'evidex index [--repo DIR] [--json]',
    summary: 'build or refresh the index, with progress',
    details: 'Without a daemon the index is built in this process; with one running, the daemon refreshes it.\n'
      + 'Unchanged files (same size, time and hash) are not parsed again. Ctrl-C stops it safely.',
    flags: { ...REPO, ...JSON_FLAG, ...HELP },
    run: runIndex,
  },
  daemon: {
    usage: 'evidex daemon start|stop|status|run|list|prune [--repo DIR] [--all] [--json]',
    summary: 'start, stop or inspect the daemon for a repository (run = in the foreground); list, stop --all or prune all of them',
    flags: { ...REPO, all: { kind: 'boolean', help: 'with stop: every daemon under $EVIDEX_HOME' }, ...JSON_FLAG, ...HELP },
    async run(p) {
      needPositionals(p, 1, this.usage);
      const action = p.positionals[0];
      const json = Boolean(p.flags.json);
      const c = await import('./connection.js');
      const out = (human: string, obj: unknown) => process.stdout.write(json ? `${JSON.stringify(obj)}\n` : `${human}\n`);
      if (p.flags.all && action !== 'stop') throw new UsageError(`--all goes with stop only; usage: ${this.usage}`);
      if (action === 'list' || action === 'prune' || p.flags.all) {
        if (p.flags.repo !== undefined) throw new UsageError(`daemon ${action}${p.flags.all ? ' --all' : ''} covers every repository; it takes no --repo`);
        // daemon-commands.ts acts, daemon-report.ts says what happened.
        const [act, report] = await Promise.all([import('./daemon-commands.js'), import('./daemon-report.js')]);
        const print = (human: string, obj: unknown) => process.stdout.write(json ? `${JSON.stringify(obj)}\n` : human);
        if (action === 'list') { const l = await act.listDaemons(); print(report.formatList(l), l); }
        else if (action === 'prune') { const r = await act.pruneStateDirs(); print(report.formatPrune(r), r); }
        else { const stopped = await act.stopAllDaemons(); print(report.formatStopAll(stopped, (await import('../daemon/state.js')).stateRoot()), { stopped }); }
        return 0;
      }
      const root = await repoOf(p);
      switch (action) {
        case 'start': {
          const r = await c.daemonStart(root, { unnamedRoot: unnamedRoot(p) });
          out(r.started ? `started evidex daemon for ${r.info.root} (pid ${r.info.pid}) at ${r.info.url}; log: ${r.log}`
            : `evidex daemon already running for ${r.info.root} (pid ${r.info.pid}) at ${r.info.url}`, { ...r, info: { ...r.info, token: undefined } });
          return 0;
        }
        case 'stop': {
          const r = await c.daemonStop(root);
          out(r.message, r);
          return 0;
        }
        case 'status': {
          const r = await c.daemonStatus(root);
          const { formatStatus } = await import('./daemon-report.js');
          out(formatStatus(r), r);
          return r.running ? 0 : 3;
        }
        case 'run': {
          const { runDaemonForeground } = await import('./daemon-run.js');
          return runDaemonForeground(root);
        }
        default:
          throw new UsageError(`unknown daemon action ${JSON.stringify(action)}; usage: ${this.usage}`);
      }
    },
  },
  call: {
    usage: "evidex call TOOL 'JSON_ARGS' [--repo DIR]",
    summary: 'run one tool; JSON result on stdout; exit 0 ok, 2 refused or tool error, 1 anything else',
    details: 'The arguments go to the tool as given: paths in them are relative to the repository root.\n'
      + 'A refusal prints {"error": {"code": "...", "message": "..."}}.\n\n'
      + "example:\n  evidex call find_symbol '{\"name\": \"Settings\", \"kind\": \"class\"}'",
    flags: { ...REPO, ...HELP },
    async run(p) {
      needPositionals(p, 2, this.usage);
      const [name, raw] = p.positionals;
      let args: unknown;
      try {
        args = JSON.parse(raw);
      } catch (e) {
        throw new Refusal('invalid_arguments', `JSON_ARGS is not valid JSON: ${(e as Error).message}`);
      }
      const r = await withDaemon(await repoOf(p), p, (client) => client.request(Methods.toolsCall, { name, arguments: args }));
      process.stdout.write(`${JSON.stringify({ evidence: r.evidence, total: r.total })}\n`);
      return 0;
    },
  },
  search: toolCommand({
    tool: 'search_code',
    usage: 'evidex search QUERY [--limit N] [--offset N] [--case-sensitive] [--path-prefix P]',
    summary: 'literal text search over paths and lines',
    details: 'QUERY is literal text, not a regex, matched case-insensitively unless --case-sensitive.\n'
      + 'Files whose path contains it come first (as path:1:), then one line per matching line.\n\n'
      + 'examples:\n  evidex search COLLECTION_NAME\n  evidex search "def main" --path-prefix src/\n  evidex search -- --no-deps        (-- ends the options)',
    flags: {
      ...PAGE,
      'case-sensitive': { kind: 'boolean', help: 'match case exactly' },
      ...PATH_PREFIX,
    },
    build: (p) => {
      needPositionals(p, 1, 'evidex search QUERY');
      return { query: p.positionals[0], ...pageArgs(p), case_sensitive: p.flags['case-sensitive'], path_prefix: p.flags['path-prefix'] };
    },
    format: (p) => ({ highlight: { text: p.positionals[0], caseSensitive: Boolean(p.flags['case-sensitive']) } }),
  }),
  symbol: toolCommand({
    tool: 'find_symbol',
    usage: 'evidex symbol NAME [--kind class|function|method|variable] [--body] [--limit N] [--offset N] [--path-prefix P]',
    summary: 'find Python definitions by simple or qualified name',
    details: 'NAME is a simple name (run), a qualified one (Server.run) or a module-qualified one (pkg.mod.Server.run).\n'
      + 'One line per definition: path:start-end: kind name  first line; --body prints each definition whole.\n\n'
      + 'examples:\n  evidex symbol Settings\n  evidex symbol Settings.load --body',
    flags: {
      kind: { kind: 'string', value: 'KIND', choices: ['class', 'function', 'method', 'variable', 'interface', 'type', 'enum', 'namespace'], help: 'class, function, method or variable' },
      body: { kind: 'boolean', help: 'print every definition whole instead of one line each' },
      ...PAGE,
      ...PATH_PREFIX,
    },
    build: (p) => {
      needPositionals(p, 1, 'evidex symbol NAME');
      return { name: p.positionals[0], kind: p.flags.kind, ...pageArgs(p), path_prefix: p.flags['path-prefix'] };
    },
    format: (p) => ({ body: Boolean(p.flags.body) }),
  }),
  read: toolCommand({
    tool: 'read_evidence',
    usage: 'evidex read PATH[:START[-END]] [--context N]',
    summary: `print lines of an indexed file (at most ${READ_MAX_LINES} at a time)`,
    details: `PATH alone prints the file from line 1, up to ${READ_MAX_LINES} lines, and says how to read on;\n`
      + 'PATH:START prints that line, PATH:START-END those lines. PATH is relative to the current folder.\n\n'
      + 'examples:\n  evidex read src/app.py\n  evidex read src/app.py:120-160\n  evidex read app.py:42 --context 5',
    flags: { context: { kind: 'int', help: 'extra lines on each side (0-50)' } },
    build: (p, path) => {
      needPositionals(p, 1, 'evidex read PATH[:START[-END]]');
      const t = parseReadTarget(p.positionals[0]);
      return { ...t, path: path(t.path), context: p.flags.context };
    },
    // --json prints the tool's own answer; the text output every line asked for.
    call: (client, args, p) => (p.flags.json ? callTool(client, 'read_evidence', args) : readWhole(client, args)),
    async after(r, args, client) {
      const e = r.evidence[0];
      const fromTheTop = args.start_line === 1 && args.end_line === READ_MAX_LINES;
      if (!e || !fromTheTop || e.end_line < READ_MAX_LINES || !(await hasLine(client, e.path, e.end_line + 1))) return null;
      return `${e.path}: stopped at line ${e.end_line} (${READ_MAX_LINES} lines at a time); read on with \`evidex read ${e.path}:${e.end_line + 1}-${e.end_line + READ_MAX_LINES}\` (a path from the repository root)`;
    },
  }),
  importers: toolCommand({
    tool: 'find_importers',
    usage: 'evidex importers MODULE [--via-reexports] [--limit N] [--offset N] [--path-prefix P]',
    summary: 'import statements that import a module (dotted name or repo path)',
    details: 'MODULE is a dotted name (pkg.mod) or a repository path of a Python file (src/pkg/mod.py).\n\n'
      + 'examples:\n  evidex importers rag_common\n  evidex importers src/rag_common.py',
    flags: { 'via-reexports': { kind: 'boolean', help: 'also statements importing a file that re-exports MODULE (barrels)' }, ...PAGE, ...PATH_PREFIX },
    build: (p) => {
      needPositionals(p, 1, 'evidex importers MODULE');
      return { module_name: p.positionals[0], via_reexports: p.flags['via-reexports'], ...pageArgs(p), path_prefix: p.flags['path-prefix'] };
    },
  }),
  diff: toolCommand({
    tool: 'read_git_diff',
    usage: 'evidex diff [PATH] [--staged] [--base REF] [--limit N] [--offset N]',
    summary: 'uncommitted changes, one item per hunk',
    details: 'Hunks of the working tree (or the index, --staged) against HEAD (or --base REF); line numbers are the new file\'s.\n'
      + 'PATH is relative to the current folder.',
    flags: {
      staged: { kind: 'boolean', help: 'staged changes instead of the working tree' },
      base: { kind: 'string', value: 'REF', help: 'diff against REF instead of HEAD' },
      ...PAGE,
    },
    build: (p, path) => {
      if (p.positionals.length > 1) throw new UsageError('usage: evidex diff [PATH] [--staged] [--base REF] [--limit N] [--offset N]');
      const file = p.positionals[0];
      return { path: file === undefined ? undefined : path(file), staged: p.flags.staged, base: p.flags.base, ...pageArgs(p) };
    },
  }),
  ask: modelCommand('evidex ask "QUESTION" [--model M] [--json]',
    'ask a local Ollama model; it answers from evidex tools, citing path:line (exit 0 backed, 4 unbacked citation, 3 no answer)',
    'cli', 1, async () => { const { runAskCommand } = await import('./ask.js'); return (c, [q], o) => runAskCommand(c, q, o); }, JSON_FLAG),
  chat: modelCommand('evidex chat [--model M]',
    'a conversation with a local model: follow-up questions share the evidence (/evidence, /model M, /quit)',
    'chat', 0, async () => { const { runChatCommand } = await import('./chat.js'); return (c, _a, o) => runChatCommand(c, o); }),
  eval: modelCommand('evidex eval FILE [--model M] [--repeat N] [--json]',
    'run an evaluation set (JSONL cases) against a model and print pass/fail per case', 'eval', 1,
    async () => { const { runEvalCommand } = await import('./eval.js'); return (c, [file], o) => runEvalCommand(c, file, o); },
    { repeat: { kind: 'int', value: 'N', help: 'run every case N times and report its pass rate (default 1)' }, ...JSON_FLAG }),
  mcp: {
    usage: 'evidex mcp [--repo DIR]',
    summary: 'MCP server on stdio: the five tools for any MCP host, answered by the daemon',
    flags: { ...REPO, ...HELP },
    async run(p) {
      needPositionals(p, 0, this.usage);
      // Loaded here only: the MCP SDK stays out of every other command's start-up.
      const { runMcpServer } = await import('./mcp/server.js');
      return runMcpServer({ root: await repoOf(p), version: version(), unnamedRoot: unnamedRoot(p) });
    },
  },
  tools: {
    usage: 'evidex tools [--json]',
    summary: 'the allowlist: the five read-only tools and their argument schemas',
    // --repo is accepted (and unused) so every command takes the same common flags.
    flags: { ...REPO, ...JSON_FLAG, ...HELP },
    async run(p) {
      const { toolDescriptors } = await import('../indexer/query/schemas.js');
      const tools = toolDescriptors();
      if (p.flags.json) {
        process.stdout.write(`${JSON.stringify({ tools })}\n`);
        return 0;
      }
      for (const t of tools) {
        process.stdout.write(`${t.name}\n  ${t.description}\n`);
        const props = (t.inputSchema.properties ?? {}) as Record<string, { type?: string; description?: string }>;
        const required = new Set((t.inputSchema.required ?? []) as string[]);
        for (const [k, v] of Object.entries(props)) {
          process.stdout.write(`    ${k}${required.has(k) ? '' : '?'} (${v.type ?? 'any'}): ${v.description ?? ''}\n`);
        }
      }
      return 0;
    },
  },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function mainHelp(): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.usage.length));
  return [
    'evidex — a read-only, evidence-first code index for local LLMs',
    '',
    'usage:',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    'Run `evidex COMMAND --help` for a command\'s options and examples. `--` ends the options.',
    'Paths on the command line are relative to the current folder (tools and `evidex call` take them from the root).',
    'State lives in $EVIDEX_HOME (default $XDG_CACHE_HOME/evidex, else ~/.cache/evidex).',
    'Exit status: 0 ok, 2 refused (bad arguments, tool refusal), 1 any other error; `daemon status` exits 3 when no daemon runs.',
  ].join('\n');
}

function commandHelp(cmd: Command): string {
  return `usage: ${cmd.usage}\n${cmd.summary}\n${cmd.details ? `\n${cmd.details}\n` : ''}\noptions:\n${describeFlags(cmd.flags)}`;
}

/** Edit distance, for "did you mean" (command names are short: the quadratic table is nothing). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The command a mistyped name most likely meant: within 2 edits (1 for short names), or one it starts. */
export function nearestCommand(name: string): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of Object.keys(COMMANDS)) {
    const d = distance(name.toLowerCase(), c);
    if (d < bestD) { best = c; bestD = d; }
  }
  if (best !== null && bestD <= (name.length <= 4 ? 1 : 2)) return best;
  const prefixed = Object.keys(COMMANDS).filter((c) => name.length >= 2 && c.startsWith(name.toLowerCase()));
  return prefixed.length === 1 ? prefixed[0] : null;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' && rest[0] !== undefined ? COMMANDS[rest[0]] : undefined;
    process.stdout.write(`${topic ? commandHelp(topic) : mainHelp()}\n`);
    return name ? 0 : EXIT_REFUSED;
  }
  if (name === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const cmd = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  try {
    if (!cmd) {
      const near = nearestCommand(name);
      throw new UsageError(`unknown command ${JSON.stringify(name)}${near ? `; did you mean \`evidex ${near}\`?` : ''} (run \`evidex --help\`)`);
    }
    const parsed = parseArgs(rest, cmd.flags);
    if (parsed.flags.help) {
      process.stdout.write(`${commandHelp(cmd)}\n`);
      return 0;
    }
    return await cmd.run(parsed);
  } catch (e) {
    return report(e, name === 'call');
  }
}

/** Prints an error the one way (client/errors.ts): `{"error": ...}` on stdout for `call`, one line on stderr otherwise. */
function report(e: unknown, asJson: boolean): number {
  const u = userError(e);
  if (asJson) process.stdout.write(`${JSON.stringify({ error: { code: u.code, message: u.message } })}\n`);
  else process.stderr.write(`evidex: ${u.plain ? u.message : `${u.code}: ${u.message}`}\n`);
  return u.exit;
}
