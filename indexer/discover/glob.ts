// The one glob engine: git's wildmatch with WM_PATHNAME (wildmatch.c, and
// dir.c's reading of a pattern), compiled to a RegExp. Both rule sets that
// name files by pattern use it — the ignore files (gitignore.ts) and the
// secret patterns (rules.ts) — so a pattern means the same thing in either,
// and the differential tests against `git ls-files` (test/discover.test.ts,
// test/git-ignore-sources.test.ts) check the engine both depend on.
//
// - `*`, `?` and `[...]` never match "/"; `**` is special only as a whole path
//   segment (`a/**/b`, `**/x`, `x/**`); `[!..]`/`[^..]`, ranges, `[:class:]`,
//   backslash escapes; an unterminated or malformed bracket, or a trailing
//   backslash, never matches.
// - A pattern without "/" matches a path's last segment (its basename) at any
//   depth; one with "/" matches the whole path (a leading "/" only anchors).
//   The literal prefix of a path pattern is compared before wildmatch runs on
//   the rest, so "**" right after that prefix counts as segment-initial (git quirk).
// - Matching is on UTF-8 bytes (`?` is one byte, as in git): patterns and paths
//   are turned into "binary strings" (one char per byte) before the regex runs.
// - Case folding (git's core.ignorecase, WM_CASEFOLD) is ASCII only, as git's
//   sane_ctype: the path and the pattern's literal characters are lowered;
//   inside a bracket a range or [:upper:] also takes the lower-case letters, a
//   single member does not (git compares it unlowered with the lowered path
//   character, so `[A]` matches nothing).

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

/** A compiled glob: what part of a path it is matched against, and the regex (null: it can never match). */
export interface CompiledGlob {
  /** No "/" in the pattern: matched against the path's last segment. */
  basename: boolean;
  /** Anchored (`^…$`), over a subject made by globSubject with the same `fold`. */
  re: RegExp | null;
}

/** The regex source of one glob (`^`/`$` not included), or null when it can never match. `p` is a byte string (toByteString). */
export function globSource(p: string, fold: boolean): { basename: boolean; source: string | null } {
  const basename = !p.includes('/');
  try {
    if (basename) return { basename, source: wildmatchToRegex(p, 0, fold) };
    const body = p.startsWith('/') ? p.slice(1) : p;
    const special = body.search(/[*?[\\]/);
    return { basename, source: wildmatchToRegex(body, special < 0 ? body.length : special, fold) };
  } catch (err) {
    if (!(err instanceof Malformed)) throw err;
    return { basename, source: null };
  }
}

/** Compiles one glob; `p` is a byte string (toByteString). */
export function compileGlob(p: string, fold: boolean): CompiledGlob {
  const { basename, source } = globSource(p, fold);
  return { basename, re: source === null ? null : new RegExp(`^${source}$`) };
}

/** A path as globs compiled with `fold` are matched against: its UTF-8 bytes, ASCII letters lowered when folding. */
export function globSubject(path: string, fold: boolean): string {
  const bytes = toByteString(path);
  return fold ? asciiLower(bytes) : bytes;
}
