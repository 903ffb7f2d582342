// gitignore files, read and applied the way git itself does (dir.c), because
// docs/tools.md says "what .gitignore excludes" and git is the only authority
// on that. Not the `ignore` npm package: a differential fuzz against
// `git ls-files` finds it wrong on `[!a]*`, `q\*`, `foo/**/` and nested-file
// precedence, so this is a direct port instead. The patterns themselves are
// git's wildmatch, compiled by the one glob engine (glob.ts).
//
// What is ported here, rule by rule:
// - lines split at "\n", one "\r" before it dropped, a leading UTF-8 BOM skipped;
//   empty lines and lines starting with "#" skipped; unescaped trailing spaces
//   trimmed (trim_trailing_spaces).
// - "!" negates; one trailing "/" makes the pattern match folders only.
// - within one file the last matching pattern wins; case-sensitive unless
//   core.ignorecase (the engine's ASCII folding).
import { compileGlob, globSubject, toByteString } from './glob.js';

export interface IgnorePattern {
  /** The line as written, for messages and debugging. */
  source: string;
  /** Its line number in its file (1-based; 0 for a line given outside a file): what `git check-ignore -v` names. */
  line: number;
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

/** One line of an ignore file → a pattern, or null for blanks and comments. */
export function parsePatternLine(rawLine: string, fold = false, lineNo = 0): IgnorePattern | null {
  if (rawLine === '' || rawLine.startsWith('#')) return null;
  const line = trimTrailingSpaces(rawLine);
  let p = toByteString(line);
  let negative = false;
  if (p.startsWith('!')) { negative = true; p = p.slice(1); }
  let dirOnly = false;
  if (p.endsWith('/')) { dirOnly = true; p = p.slice(0, -1); }
  if (p === '') return null; // "!", "/", "   ": git adds them, and they match nothing
  const { basename, re } = compileGlob(p, fold);
  return { source: line, line: lineNo, negative, dirOnly, basename, re, fold };
}

/** An ignore file's text → its patterns in file order. */
export function parseIgnoreFile(text: string, fold = false): IgnorePattern[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const out: IgnorePattern[] = [];
  body.split('\n').forEach((raw, i) => {
    const pat = parsePatternLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw, fold, i + 1);
    if (pat) out.push(pat);
  });
  return out;
}

/**
 * The verdict of one file's patterns on `rel` (relative to that file's folder;
 * ancestors are the caller's business): the last matching pattern decides.
 */
export function matchPatterns(patterns: readonly IgnorePattern[], rel: string, isDir: boolean): Verdict {
  const pat = matchingPattern(patterns, rel, isDir);
  return pat === null ? 'none' : pat.negative ? 'unignored' : 'ignored';
}

/** The pattern of one file that decides on `rel` (the last that matches), or null when none does: the rule a person is told of. */
export function matchingPattern(patterns: readonly IgnorePattern[], rel: string, isDir: boolean): IgnorePattern | null {
  if (patterns.length === 0) return null;
  // One file's patterns are compiled alike (RepoRules passes the same fold to all).
  const path = globSubject(rel, patterns[0].fold);
  const slash = path.lastIndexOf('/');
  const base = slash < 0 ? path : path.slice(slash + 1);
  for (let i = patterns.length - 1; i >= 0; i--) {
    const pat = patterns[i];
    if (!pat.re || (pat.dirOnly && !isDir)) continue;
    if (pat.re.test(pat.basename ? base : path)) return pat;
  }
  return null;
}
