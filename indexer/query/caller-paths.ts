// Caller-path safety (docs/tools.md, What is indexed): every path that arrives in a tool argument
// passes through here before anything opens a file or runs git. The answer is a
// clean POSIX path relative to the root, or a ToolError with a one-line reason.
// Whether the path is actually indexed is the index's question (`not_indexed`);
// this module only decides whether the caller may name it at all.
import { ToolError } from '../errors.js';
import { realRelative, realpathOrNull } from '../discover/rules.js';
import { NAME_MAX, PATH_MAX } from '../discover/path-limits.js';

/**
 * What a caller's path is checked against: the root's real path and, when
 * given, the secret rule. The index passes its RepoRules, which hold both (the
 * real path resolved once, when the rules load); `{ realRoot }` alone checks
 * paths without secrets.
 */
export interface PathBoundary {
  readonly realRoot: string;
  /** When present, a secret (by its name or its symlink target's name) is refused with `secret_denied`. */
  isSecret?(relPath: string): boolean;
}

export interface CallerPathOptions {
  /** Accept "" and "." (and "./", "a/..") as the root itself, returned as "". Only where a folder makes sense. */
  allowRoot?: boolean;
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
 * Overlong UTF-8 lead bytes (%c0, %c1, %e0%80, %f0%80): never valid UTF-8, and the
 * classic way past a naive decoder (%c0%ae is "." to some). Always refused.
 */
const OVERLONG_ESCAPE = /%(c0|c1|e0%[89][0-9a-f]|f0%8[0-9a-f])/i;

/** Decodes %xx escapes, and again while the result changes (double encoding), at most 3 rounds. */
function percentDecoded(s: string): string {
  let cur = s;
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(cur); i++) {
    let next: string;
    try { next = decodeURIComponent(cur); } catch { next = cur.replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))); }
    if (next === cur) break;
    cur = next;
  }
  return cur;
}

/** Why `s`, read as a plain POSIX path, is absolute or leaves the root; null when it does neither. */
function escapeReason(s: string): string | null {
  if (s.startsWith('/')) return 'it is absolute; give a path relative to the repository root';
  if (/^[A-Za-z]:([\\/]|$)/.test(s)) return 'it is an absolute Windows path (drive letter); give a path relative to the repository root';
  let depth = 0;
  for (const seg of s.split('/')) {
    if (seg === '..') { if (--depth < 0) return 'it escapes the repository root through ".."'; }
    else if (seg !== '' && seg !== '.') depth++;
  }
  return null;
}

/** Lexical checks and normalisation only (no file system): the clean path, "" for the root. */
export function normalizeLexically(input: unknown, opts: { allowRoot?: boolean } = {}): string {
  if (typeof input !== 'string') throw new ToolError('path_denied', `path must be a string, got ${typeof input}`);
  const s = input;
  if (s.includes('\0')) throw denied(s, 'it contains a NUL byte');
  if (s.startsWith('\\\\')) throw denied(s, 'it is a UNC network path; give a path relative to the repository root');
  const direct = escapeReason(s);
  if (direct) throw denied(s, direct);
  // We never decode a caller's path: "a%2e.txt" and "a\\b" are literal names, as
  // on disk. But a path that escapes once some other layer decodes it (%2e%2e/,
  // ..\\, %252e, overlong forms) is an escape attempt and is refused as one.
  const overlong = OVERLONG_ESCAPE.exec(s);
  if (overlong) throw denied(s, `it contains the overlong UTF-8 escape ${overlong[0]}; give the path literally`);
  const decoded = percentDecoded(s);
  // Each form named by how it was read, so the refusal says why a path with no "/" or ".." in sight is refused.
  const forms: Array<[string, string]> = [
    [decoded, 'percent-decoded'], [s.replace(/\\/g, '/'), 'read with "\\" as "/" (as Windows reads it)'], [decoded.replace(/\\/g, '/'), 'percent-decoded and read with "\\" as "/"'],
  ];
  for (const [form, how] of forms) {
    if (form.includes('\0')) throw denied(s, 'it encodes a NUL byte');
    const reason = form !== s ? escapeReason(form) : null;
    if (reason) throw denied(s, `${how} it is ${JSON.stringify(form.length > 60 ? `${form.slice(0, 57)}...` : form)}, which ${reason.replace(/;.*$/, '').replace(/^it /, '')}`);
  }
  const out: string[] = [];
  for (const seg of s.split('/')) {
    if (seg === '' || seg === '.') continue;
    // No file system holds such a name; refused here rather than as the ENAMETOOLONG an open would throw.
    if (Buffer.byteLength(seg) > NAME_MAX) throw denied(s, `a path segment is longer than ${NAME_MAX} bytes, which no file name can be`);
    if (seg === '..') {
      out.pop(); // escapeReason above guarantees this never climbs past the root
      continue;
    }
    out.push(seg);
  }
  const clean = out.join('/');
  if (Buffer.byteLength(clean) > PATH_MAX) throw denied(s, `it is longer than ${PATH_MAX} bytes, which no path can be`);
  if (clean === '' && !opts.allowRoot) throw denied(s, 'it names the repository root, not a file');
  return clean;
}

/** realpathOrNull, with the errors a caller's path can provoke (too long with the root, a folder it may not search) as refusals. */
function resolvedOrDenied(input: string, abs: string): string | null {
  try {
    return realpathOrNull(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENAMETOOLONG') throw denied(input, 'together with the repository root it is longer than the system allows');
    if (code === 'EACCES' || code === 'EPERM') throw denied(input, `it cannot be resolved (${code}: a folder on the way may not be searched)`);
    throw err;
  }
}

/** A caller's path as accepted, and the real path, relative to the root, of what it names. */
export interface CallerPath {
  /** The clean path as the caller spelled it ("" for the root). */
  path: string;
  /** Where it leads once symbolic links are resolved ("" for the root); null when nothing is there. */
  real: string | null;
}

/**
 * Resolves a caller's path against the root (docs/tools.md, What is indexed): refuses absolute
 * paths, NUL bytes, `..` that leaves the root (also in an encoded form:
 * percent escapes, backslashes), and paths that reach outside the root through a symlink (`path_denied`),
 * and — when the boundary has the secret rule — secrets (`secret_denied`).
 * Accepts "./src/x.py", "src//x.py", "src/x.py/" as "src/x.py", and says
 * where it leads. Throws ToolError only. Only the caller's path is resolved
 * here, per call; the root's real path comes with the boundary.
 */
export function resolveCallerPath(boundary: PathBoundary, input: string, opts: CallerPathOptions = {}): CallerPath {
  const clean = normalizeLexically(input, opts);
  if (clean === '') return { path: clean, real: '' };
  const { realRoot } = boundary;

  // Resolve the deepest part of the path that exists: a symlink anywhere along
  // it must stay inside the root, even if the last part does not exist yet.
  const segs = clean.split('/');
  let realRel: string | null = null;
  for (let n = segs.length; n > 0; n--) {
    const real = resolvedOrDenied(input, `${realRoot}/${segs.slice(0, n).join('/')}`);
    if (real === null) continue;
    realRel = realRelative(realRoot, real);
    if (realRel === null) throw denied(input, 'it resolves through a symbolic link to outside the repository root');
    if (n < segs.length) realRel = null; // only the full path's real name counts, for the secret check below and the caller
    break;
  }
  if (boundary.isSecret?.(clean) || (realRel !== null && realRel !== '' && boundary.isSecret?.(realRel))) {
    throw new ToolError('secret_denied', `path ${shown(clean)} refused: it is a secret file, which evidex never reads`);
  }
  return { path: clean, real: realRel };
}

/** resolveCallerPath's clean path: the path the caller may name, as the index names files. */
export function normalizeCallerPath(boundary: PathBoundary, input: string, opts: CallerPathOptions = {}): string {
  return resolveCallerPath(boundary, input, opts).path;
}
