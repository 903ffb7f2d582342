// The notes on a search_code answer that found nothing for a query written as
// a regular expression (docs/tools.md, search_code): search is literal, so
// `use[A-Z]\w+\(` looks for those very characters, and an empty answer alone
// would read as "no such code". Said only when nothing matched, so a query
// that does hold such characters literally (`\n` in a string) loses nothing.
// So for a query holding a line break, which no line can match.
import type { Note } from './notes.js';

/**
 * What marks a query as written for a regular-expression engine: a class
 * escape (`\w`, `\d`, `\s`, `\b` and their capitals), an escaped punctuation
 * character (`\(`, `\.`), `.*`, `.+`, `.?`, a bracket class with a range or
 * negated (`[A-Z]`, `[^"]`), a group's `(?:`, `(?=`, `(?!`, `(?<`, a group
 * of alternatives without blanks (`(class|function)`; `(a || b)` is code).
 */
const REGEX_SYNTAX = /\\[wWdDsSbB]|\\[.()[\]{}+*?|^$\\/]|\.[*+?]|\[\^[^\]]+\]|\[[^\]]*[^\]\\]-[^\]][^\]]*\]|\(\?[:=!<]|\((?:[^()|\s]+\|)+[^()|\s]+\)/g;

/** Shown at most: the note stays one short line. */
const SHOWN_SYNTAX = 3;

/** The note when `total` is 0 and `query` holds regular-expression syntax; else null. */
export function regexNote(query: string, total: number, caseSensitive: boolean): Note | null {
  if (total > 0) return null;
  const found = [...new Set(query.match(REGEX_SYNTAX) ?? [])];
  if (found.length === 0) return null;
  const literal = longestLiteralPart(query);
  const text = `search_code matches literal text, not regular expressions: ${found.slice(0, SHOWN_SYNTAX).join(' ')} ${found.length === 1 ? 'was' : 'were'} looked for as written`
    + `${caseSensitive ? ', case as given' : ', ignoring case'}${literal === null ? '' : `; search a literal part of it, such as ${JSON.stringify(literal)}`}`;
  return { text, paths: [] };
}

/** The longest run of the query outside its regular-expression syntax and operators, when it has 3 characters or more. */
function longestLiteralPart(query: string): string | null {
  let best = '';
  for (const part of query.split(REGEX_SYNTAX).flatMap((p) => p.split(/[[\]()*+?{}|^$]/))) {
    const t = part.trim();
    if (t.length > best.length) best = t;
  }
  return best.length >= 3 ? best : null;
}

/**
 * The note when `total` is 0 and `query` holds a line break (pasted from a
 * file, say): a match lies within one line, so no line can hold it; its
 * longest line is offered. Else null.
 */
export function lineBreakNote(query: string, total: number): Note | null {
  if (total > 0 || !/[\r\n]/.test(query)) return null;
  const longest = query.split(/\r?\n|\r/).map((l) => l.trim()).reduce((a, b) => (b.length > a.length ? b : a), '');
  const text = `search_code matches within one line, and the query holds a line break${longest === '' ? '' : `; search one line of it, such as ${JSON.stringify(longest)}`}`;
  return { text, paths: [] };
}
