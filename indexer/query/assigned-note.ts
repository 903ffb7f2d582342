// find_symbol's note on a name that JavaScript only assigns (docs/tools.md,
// find_symbol, Notes): express writes `res.send = function send(body) {`,
// which section 3b does not count as a definition, so `res.send` finds none
// and a bare 0 reads as "no such thing". The note names where the name is
// assigned a function and the search that lists every such line. Nothing is
// stored for it: the lines are search_code's own answer for `NAME =` (and
// `A.prototype.b =` for `A.b`), limited as export-alias.ts's scan is, and
// each is read with a pattern, not parsed.
import { escapeRegExp } from '../../local/regexp.js';
import { isTsJsPath } from '../typescript/paths.js';
import { worded, type Note } from './notes.js';
import type { ToolResult } from './schemas.js';

/** Lines looked at for each query. */
export const ASSIGNED_LINES = 50;
/** Places named in one note. */
const PLACES_NAMED = 3;
/** A quoted line longer than this is not quoted (the note stays one readable line). */
const QUOTED_MAX = 120;

const IDENT = '[A-Za-z_$][\\w$]*';
const NAME = new RegExp(`^${IDENT}(?:\\.${IDENT})*$`);

/** Whether find_symbol's empty answer for `name` is worth a look for assignments: an identifier or a dotted one. */
export function mayBeAssigned(name: string): boolean {
  return NAME.test(name) && name !== 'default';
}

/** The literal texts search_code is asked for: `A.b =` and `A.prototype.b =` for a dotted name, `.b =` for a simple one. */
export function assignedQueries(name: string): string[] {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return [`.${name} =`];
  return [`${name} =`, `${name.slice(0, dot)}.prototype.${name.slice(dot + 1)} =`];
}

/** A line that assigns a function to `name` (as `A.b`, `A.prototype.b`, or for a simple name `X.b`), maybe through other targets: `= function`, `= async function`, `= (…) =>`, `= x =>`. */
function assignmentPattern(name: string): RegExp {
  const dot = name.lastIndexOf('.');
  const target = dot < 0
    ? `(?:${IDENT}\\.)+${escapeRegExp(name)}`
    : `(?:${escapeRegExp(name)}|${escapeRegExp(name.slice(0, dot))}\\.prototype\\.${escapeRegExp(name.slice(dot + 1))})`;
  // At the start of its line (not in a comment); `req.get = req.header = function header(name) {` assigns both.
  const chain = `${IDENT}(?:\\.${IDENT})*\\s*=(?!=)\\s*`;
  return new RegExp(`^\\s*(?:${chain})*${target}\\s*=\\s*(?:${chain})*(?:async\\s+)?(?:function\\b|\\([^)]*\\)\\s*=>|${IDENT}\\s*=>)`);
}

/**
 * The note for `name` from `answers` (search_code's case-sensitive answers
 * for assignedQueries(name)): where TypeScript or JavaScript lines assign a
 * function to it, and the search that lists them. Null when no line does.
 */
export function assignedNote(name: string, answers: readonly ToolResult[]): Note | null {
  const pattern = assignmentPattern(name);
  const seen = new Set<string>();
  const places: Array<{ path: string; line: number; text: string }> = [];
  for (const a of answers) {
    for (const e of a.evidence) {
      if (e.kind !== 'content_match' || !isTsJsPath(e.path)) continue;
      const key = `${e.path}:${e.start_line}`;
      if (seen.has(key) || !pattern.test(e.snippet)) continue;
      seen.add(key);
      places.push({ path: e.path, line: e.start_line, text: e.snippet.trim() });
    }
  }
  if (places.length === 0) return null;
  places.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : x.line - y.line));
  const shown = places.slice(0, PLACES_NAMED).map((p) => `${p.path}:${p.line}${p.text.length <= QUOTED_MAX ? ` (\`${p.text}\`)` : ''}`);
  const more = places.length - shown.length;
  const where = more > 0 ? `${shown.join(', ')} and ${more} more line${more === 1 ? '' : 's'}` : shown.length === 1 ? shown[0] : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
  const call = { name: 'search_code', arguments: { query: assignedQueries(name)[0] } } as const;
  const one = places.length === 1;
  return {
    ...worded`${name} is assigned at ${where}, which ${one ? 'is not a definition' : 'are not definitions'} (docs/tools.md): ${call} lists such lines`,
    paths: [...new Set(places.slice(0, PLACES_NAMED).map((p) => p.path))],
  };
}
