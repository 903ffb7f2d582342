// Caller-path safety (contract §4): every path that arrives in a tool argument
// passes through here before anything opens a file or runs git. The answer is a
// clean POSIX path relative to the root, or a ToolError with a one-line reason.
// Whether the path is actually indexed is the index's question (`not_indexed`);
// this module only decides whether the caller may name it at all.
import { ToolError } from './errors.js';
import { RepoRules, realRelative, realpathOrNull } from './discover/rules.js';

export interface CallerPathOptions {
  /** Accept "" and "." (and "./", "a/..") as the root itself, returned as "". Only where a folder makes sense. */
  allowRoot?: boolean;
  /** With rules, a secret (by its name or its symlink target's name) is refused with `secret_denied`. */
  rules?: RepoRules;
}

/** How a path is quoted in messages: JSON (so NUL and control characters are visible), cut to stay one short line. */
function shown(input: string): string {
  const q = JSON.stringify(input);
  return q.length > 120 ? `${q.slice(0, 117)}..."` : q;
}

function denied(input: string, why: string): ToolError {
  return new ToolError('path_denied', `path ${shown(input)} refused: ${why}`);
}

/**
 * A percent escape of a byte that some layer might decode into a path
 * separator or dot: `.` `/` `\` NUL `%` (double encoding), or any byte >= 0x80
 * (overlong UTF-8 forms such as %c0%ae). We never decode escapes ourselves; a
 * real file with such a name cannot be asked for, which is the price of a
 * simple rule. Other escapes (e.g. `%20`) stay literal characters of the name.
 */
const ENCODED_ESCAPE = /%(2e|2f|5c|00|25|[89a-f][0-9a-f])/i;

/** Lexical checks and normalisation only (no file system): the clean path, "" for the root. */
export function normalizeLexically(input: unknown, opts: { allowRoot?: boolean } = {}): string {
  if (typeof input !== 'string') throw new ToolError('path_denied', `path must be a string, got ${typeof input}`);
  const s = input;
  if (s.includes('\0')) throw denied(s, 'it contains a NUL byte');
  if (s.startsWith('/')) throw denied(s, 'it is absolute; give a path relative to the repository root');
  if (/^[A-Za-z]:/.test(s)) throw denied(s, 'it is an absolute Windows path (drive letter); give a path relative to the repository root');
  if (s.startsWith('\\\\')) throw denied(s, 'it is a UNC network path; give a path relative to the repository root');
  if (s.includes('\\')) throw denied(s, 'it contains a backslash; use "/" to separate folders');
  const enc = ENCODED_ESCAPE.exec(s);
  if (enc) throw denied(s, `it contains the percent-encoded sequence ${enc[0]}; give the path literally`);
  const out: string[] = [];
  for (const seg of s.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) throw denied(s, 'it escapes the repository root through ".."');
      out.pop();
      continue;
    }
    out.push(seg);
  }
  const clean = out.join('/');
  if (clean === '' && !opts.allowRoot) throw denied(s, 'it names the repository root, not a file');
  return clean;
}

/**
 * Resolves a caller's path against `root` (contract §4): refuses absolute
 * paths, NUL bytes, backslashes, encoded separators/dots, `..` that leaves the
 * root, and paths that reach outside the root through a symlink (`path_denied`),
 * and — given the rules — secrets (`secret_denied`). Accepts "./src/x.py",
 * "src//x.py", "src/x.py/" and returns "src/x.py". Throws ToolError only.
 */
export function normalizeCallerPath(root: string, input: string, opts: CallerPathOptions = {}): string {
  const clean = normalizeLexically(input, opts);
  const realRoot = opts.rules ? opts.rules.realRoot : realpathOrNull(root) ?? root;
  if (clean === '') return clean;

  // Resolve the deepest part of the path that exists: a symlink anywhere along
  // it must stay inside the root, even if the last part does not exist yet.
  const segs = clean.split('/');
  let realRel: string | null = null;
  for (let n = segs.length; n > 0; n--) {
    const real = realpathOrNull(`${realRoot}/${segs.slice(0, n).join('/')}`);
    if (real === null) continue;
    realRel = realRelative(realRoot, real);
    if (realRel === null) throw denied(input, 'it resolves through a symbolic link to outside the repository root');
    if (n < segs.length) realRel = null; // only the full path's real name counts for the secret check below
    break;
  }
  if (opts.rules) {
    if (opts.rules.isSecret(clean) || (realRel !== null && realRel !== '' && opts.rules.isSecret(realRel))) {
      throw new ToolError('secret_denied', `path ${shown(clean)} refused: it is a secret file, which evidex never reads`);
    }
  }
  return clean;
}
