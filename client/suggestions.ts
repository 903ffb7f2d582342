// The one line a person reads when find_symbol or find_importers found
// nothing but the index holds names near it (docs/tools.md, Suggestions):
//   did you mean: Scaffold.route (inherited, src/flask/sansio/scaffold.py:335), …
// Every name and path passes local/human.ts's rule: they come from the repository.
import type { ToolResult } from '../protocol/messages.js';
import { human, join, line, path, type Shown } from '../local/human.js';

type Suggestion = NonNullable<ToolResult['suggestions']>[number];

/** "did you mean: …", or null when there are no suggestions; `shownPath` prints a root-relative path as the output does. */
export function formatSuggestions(r: ToolResult, shownPath: (rootPath: string) => string = (p) => p): Shown | null {
  const list = r.suggestions ?? [];
  if (list.length === 0) return null;
  const one = (s: Suggestion): Shown => {
    const where = s.path === undefined ? null : s.line === undefined ? path(shownPath(s.path)) : human`${path(shownPath(s.path))}:${String(s.line)}`;
    const more = s.count !== undefined ? human`, +${String(s.count - 1)} more` : '';
    return where ? human`${line(s.name)} (${s.why}, ${where}${more})` : human`${line(s.name)} (${s.why})`;
  };
  return human`did you mean: ${join(list.map(one), ', ')}`;
}
