// The one line a person reads when find_symbol or find_importers found
// nothing but the index holds names near it (docs/tools.md, Suggestions):
//   did you mean: Scaffold.route (inherited, src/flask/sansio/scaffold.py:335), …
// find_importers' are labelled by what they name (indexer/query/suggestion-groups.ts):
//   did you mean: file src/hono.ts (tail); package names hono (spelt alike, package.json), @hono (spelt alike)
// Every name and path passes local/human.ts's rule: they come from the repository.
import type { ToolResult } from '../protocol/messages.js';
import { importerSuggestionGroups } from '../indexer/query/suggestion-groups.js';
import { human, join, line, path, type Shown } from '../local/human.js';

type Suggestion = NonNullable<ToolResult['suggestions']>[number];

/** A reason said otherwise than the tools' own word: `edit` (an edit distance) read as an instruction to edit. */
const REASON_WORDS: Partial<Record<Suggestion['why'], string>> = { edit: 'spelt alike' };

/** What the command filtered by, to say why a `filtered_out` suggestion was left out: the --kind asked for, and how the paths were limited. */
export interface Filters {
  kind?: string;
  /** `outside --path-prefix`, `outside this folder`. */
  outside: string;
  /** find_importers' suggestions: grouped under what they name (files, modules, package names). */
  byKind?: boolean;
}

/**
 * "did you mean: …", or null when there are no suggestions; `shownPath` prints
 * a root-relative path as the output does. A definition the filters left out
 * is said to be so in words (`a variable, not a method`), not by the rule's name.
 */
export function formatSuggestions(r: ToolResult, shownPath: (rootPath: string) => string = (p) => p, filters: Filters = { outside: 'outside --path-prefix' }): Shown | null {
  const list = r.suggestions ?? [];
  if (list.length === 0) return null;
  const why = (s: Suggestion): string => {
    if (s.why !== 'filtered_out') return REASON_WORDS[s.why] ?? s.why;
    return filters.kind !== undefined && s.kind !== undefined && s.kind !== filters.kind ? `${kindsSaid(s)}, not ${article(filters.kind)} ${filters.kind}` : filters.outside;
  };
  const one = (s: Suggestion): Shown => {
    // A name that is its file's path (find_importers suggests paths) is shown as paths are, so it works as typed, and says where it is itself.
    if (s.path !== undefined && s.name === s.path && s.line === undefined) return human`${path(shownPath(s.name))} (${why(s)})`;
    const where = s.path === undefined ? null : s.line === undefined ? path(shownPath(s.path)) : human`${path(shownPath(s.path))}:${String(s.line)}`;
    // Kinds said in words (`a variable and 6 functions`) count the definitions already.
    const more = s.count !== undefined && !(kindsWorded(s, filters)) ? human`, +${String(s.count - 1)} more` : '';
    return where ? human`${line(s.name)} (${why(s)}, ${where}${more})` : human`${line(s.name)} (${why(s)})`;
  };
  if (!filters.byKind) return human`did you mean: ${join(list.map(one), ', ')}`;
  return human`did you mean: ${join(importerSuggestionGroups(list).map((g) => human`${g.label} ${join(g.items.map(one), ', ')}`), '; ')}`;
}

const article = (kind: string): string => (/^[aeiou]/.test(kind) ? 'an' : 'a');

/** Whether the suggestion's `why` is worded from its kinds (a filtered_out one whose kinds differ, under --kind). */
const kindsWorded = (s: Suggestion, filters: Filters): boolean =>
  s.why === 'filtered_out' && s.kinds !== undefined && filters.kind !== undefined && s.kind !== undefined && s.kind !== filters.kind;

/** `a variable` or, when the definitions differ in kind, `a variable and 6 functions` (the shown definition's kind first). */
function kindsSaid(s: Suggestion): string {
  const first = s.kind!;
  if (s.kinds === undefined) return `${article(first)} ${first}`;
  const counts = Object.entries(s.kinds).sort(([a, m], [b, n]) => Number(b === first) - Number(a === first) || n - m);
  const words = counts.map(([k, n]) => (n === 1 ? `${article(k)} ${k}` : `${n} ${k === 'class' ? 'classes' : `${k}s`}`));
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
