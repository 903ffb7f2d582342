// gitignore patterns, matched the way git itself matches them (dir.c +
// wildmatch.c), because docs/tools.md says "what .gitignore excludes" and git is
// the only authority on that. Not the `ignore` npm package: a differential
// fuzz against `git ls-files` finds it wrong on `[!a]*`, `q\*`, `foo/**/` and
// nested-file precedence, so this is a direct port instead.
//
// What is ported, rule by rule:
// - lines split at "\n", one "\r" before it dropped, a leading UTF-8 BOM skipped;
//   empty lines and lines starting with "#" skipped; unescaped trailing spaces
//   trimmed (trim_trailing_spaces).
// - "!" negates; one trailing "/" makes the pattern match folders only; a
//   pattern with no other "/" matches the basename at any depth, otherwise the
//   path relative to the ignore file's folder (a leading "/" just anchors).
// - wildmatch with WM_PATHNAME: `*`, `?` and `[...]` never match "/"; `**` is
//   special only as a whole path segment; `[!..]`/`[^..]`, ranges, `[:class:]`,
//   backslash escapes; an unterminated or malformed bracket never matches. The
//   literal prefix of a path pattern is compared before wildmatch runs on the
//   rest, so "**" right after that prefix counts as segment-initial (git quirk).
// - matching is on UTF-8 bytes (`?` is one byte, as in git): patterns and paths
//   are turned into "binary strings" (one char per byte) before the regex runs.
// - within one file the last matching pattern wins; case-sensitive unless
//   core.ignorecase (WM_CASEFOLD, ASCII only as git's sane_ctype): the path and
//   the pattern's literal characters are lowered; inside a bracket a range or
//   [:upper:] also takes the lower-case letters, a single member does not (git
//   compares it unlowered with the lowered path character, so `[A]` matches
//   nothing).

export interface IgnorePattern {
  /** The line as written, for messages and debugging. */
  source: string;
  negative: boolean;
  dirOnly: boolean;
  /** Matches the basename (pattern without "/") or the whole relative path. */
  basename: boolean;
  /** null: the pattern can never match (malformed bracket, trailing backslash). */
  re: RegExp | null;
  /** Compiled for core.ignorecase: tested against the path with ASCII letters lowered. */
  fold: boolean;
}

export type Verdict = 'ignored' | 'unignored' | 'none';

const utf8 = new TextEncoder();

/** One char per UTF-8 byte, so regex `[^/]` and char classes see bytes as git does. ASCII passes unchanged. */
export function toByteString(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s;
  return String.fromCharCode(...utf8.encode(s));
}

/** ASCII letters lowered, nothing else (git's tolower is ASCII-only). */
export function asciiLower(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
}

/** git's trim_trailing_spaces: drop trailing spaces unless escaped with a backslash. */
function trimTrailingSpaces(line: string): string {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ') { if (lastSpace < 0) lastSpace = i; continue; }
    if (c === '\\') { i++; if (i >= line.length) return line; }
    lastSpace = -1;
  }
  return lastSpace >= 0 ? line.slice(0, lastSpace) : line;
}

function hex(byte: number): string {
  return `\\x${byte.toString(16).padStart(2, '0')}`;
}

const CLASSES: Record<string, (c: number) => boolean> = {
  alnum: (c) => /[A-Za-z0-9]/.test(String.fromCharCode(c)) && c < 128,
  alpha: (c) => /[A-Za-z]/.test(String.fromCharCode(c)) && c < 128,
  blank: (c) => c === 32 || c === 9,
  cntrl: (c) => c < 32 || c === 127,
  digit: (c) => c >= 48 && c <= 57,
  graph: (c) => c > 32 && c < 127,
  lower: (c) => c >= 97 && c <= 122,
  print: (c) => c >= 32 && c < 127,
  punct: (c) => c > 32 && c < 127 && !/[A-Za-z0-9]/.test(String.fromCharCode(c)),
  space: (c) => c === 32 || (c >= 9 && c <= 13),
  upper: (c) => c >= 65 && c <= 90,
  xdigit: (c) => /[0-9A-Fa-f]/.test(String.fromCharCode(c)) && c < 128,
};

class Malformed extends Error {}

/**
 * Parses a bracket expression starting at p[i] === '[' (wildmatch's rules,
 * including "]" first being literal). Returns the regex for one byte and the
 * index after the closing "]". Throws Malformed where git aborts the match.
 */
function bracket(p: string, i: number, fold: boolean): { re: string; next: number } {
  const set = new Set<number>();
  /** Under fold a range or class member that is an upper-case letter also admits its lower case (the path is lowered). */
  const upperToo = (b: number): void => { if (fold && b >= 65 && b <= 90) set.add(b + 32); };
  let k = i + 1;
  let negated = false;
  if (p[k] === '!' || p[k] === '^') { negated = true; k++; }
  let prev = 0;
  let first = true;
  for (;;) {
    if (k >= p.length) throw new Malformed();
    let c = p.charCodeAt(k);
    if (!first && c === 93 /* ] */) break;
    first = false;
    if (c === 92 /* \ */) {
      k++;
      if (k >= p.length) throw new Malformed();
      c = p.charCodeAt(k);
      set.add(c);
      prev = c;
    } else if (c === 45 /* - */ && prev && k + 1 < p.length && p[k + 1] !== ']') {
      k++;
      let hi = p.charCodeAt(k);
      if (hi === 92) { k++; if (k >= p.length) throw new Malformed(); hi = p.charCodeAt(k); }
      for (let b = prev; b <= hi; b++) { set.add(b); upperToo(b); }
      prev = 0;
    } else if (c === 91 /* [ */ && p[k + 1] === ':') {
      const s = k + 2;
      let e = s;
      while (e < p.length && p[e] !== ']') e++;
      if (e >= p.length) throw new Malformed();
      if (e - s - 1 < 0 || p[e - 1] !== ':') {
        // No ":]": the "[" is an ordinary member and scanning resumes after it.
        set.add(91);
        prev = 91;
        k = s - 2; // the loop's k++ then looks at the ':' after '['
      } else {
        const test = CLASSES[p.slice(s, e - 1)];
        if (!test) throw new Malformed();
        for (let b = 0; b < 256; b++) if (test(b)) { set.add(b); upperToo(b); }
        prev = 0;
        k = e;
      }
    } else {
      set.add(c);
      prev = c;
    }
    k++;
  }
  const members: string[] = [];
  for (let b = 0; b < 256; b++) {
    if (b === 47 /* / never matches under WM_PATHNAME */) continue;
    if (set.has(b) !== negated) members.push(hex(b));
  }
  return { re: members.length ? `[${members.join('')}]` : '(?!)', next: k + 1 };
}

/** wildmatch(WM_PATHNAME) as a regex source over byte strings. `segStart`: where "**" counts as starting a segment. */
function wildmatchToRegex(p: string, segStart: number, fold: boolean): string {
  const lit = (c: number): string => hex(fold && c >= 65 && c <= 90 ? c + 32 : c);
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '*') {
      if (p[i + 1] === '*') {
        const starAt = i;
        while (p[i + 1] === '*') i++;
        const atSegStart = starAt === 0 || starAt === segStart || p[starAt - 1] === '/';
        const after = p.slice(i + 1);
        if (atSegStart && (after === '' || after.startsWith('/') || after.startsWith('\\/'))) {
          if (after.startsWith('/')) { re += '(?:.*/)?'; i++; }  // zero or more whole folders
          else re += '.*';                                        // end of pattern, or escaped slash follows
          continue;
        }
      }
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const b = bracket(p, i, fold);
      re += b.re;
      i = b.next - 1;
    } else if (c === '\\') {
      i++;
      if (i >= p.length) throw new Malformed(); // trailing backslash: git never matches
      re += lit(p.charCodeAt(i));
    } else {
      re += lit(p.charCodeAt(i));
    }
  }
  return re;
}

/** One line of an ignore file → a pattern, or null for blanks and comments. */
export function parsePatternLine(rawLine: string, fold = false): IgnorePattern | null {
  if (rawLine === '' || rawLine.startsWith('#')) return null;
  const line = trimTrailingSpaces(rawLine);
  let p = toByteString(line);
  let negative = false;
  if (p.startsWith('!')) { negative = true; p = p.slice(1); }
  let dirOnly = false;
  if (p.endsWith('/')) { dirOnly = true; p = p.slice(0, -1); }
  if (p === '') return null; // "!", "/", "   ": git adds them, and they match nothing
  const basename = !p.includes('/');
  let re: RegExp | null;
  try {
    if (basename) {
      re = new RegExp(`^${wildmatchToRegex(p, 0, fold)}$`);
    } else {
      const body = p.startsWith('/') ? p.slice(1) : p;
      const special = body.search(/[*?[\\]/);
      re = new RegExp(`^${wildmatchToRegex(body, special < 0 ? body.length : special, fold)}$`);
    }
  } catch (err) {
    if (!(err instanceof Malformed)) throw err;
    re = null;
  }
  return { source: line, negative, dirOnly, basename, re, fold };
}

/** An ignore file's text → its patterns in file order. */
export function parseIgnoreFile(text: string, fold = false): IgnorePattern[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const out: IgnorePattern[] = [];
  for (const raw of body.split('\n')) {
    const pat = parsePatternLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw, fold);
    if (pat) out.push(pat);
  }
  return out;
}

/**
 * The verdict of one file's patterns on `rel` (relative to that file's folder;
 * ancestors are the caller's business): the last matching pattern decides.
 */
export function matchPatterns(patterns: readonly IgnorePattern[], rel: string, isDir: boolean): Verdict {
  if (patterns.length === 0) return 'none';
  const bytes = toByteString(rel);
  // One file's patterns are compiled alike (RepoRules passes the same fold to all).
  const path = patterns[0].fold ? asciiLower(bytes) : bytes;
  const slash = path.lastIndexOf('/');
  const base = slash < 0 ? path : path.slice(slash + 1);
  for (let i = patterns.length - 1; i >= 0; i--) {
    const pat = patterns[i];
    if (!pat.re || (pat.dirOnly && !isDir)) continue;
    if (pat.re.test(pat.basename ? base : path)) return pat.negative ? 'unignored' : 'ignored';
  }
  return 'none';
}
