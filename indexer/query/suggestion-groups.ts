// find_importers' suggestions name three kinds of thing, which are asked for
// differently: files (by path), Python modules (by dotted name) and package
// names (as import statements write them, or a package.json of the
// repository names its own). Listed together without a word, `./hono`
// answered `did you mean: hono, @hono`, which reads as two paths; so every
// list of them, the tool's refusal and the CLI's line, says which is which,
// in groups in the order the suggestions rank. No imports: the CLI loads it.

/** What a find_importers suggestion names. */
export type ImporterSuggestionKind = 'file' | 'module' | 'package';

/** The kind of a find_importers suggestion: a file's path is its name; a package has no file, or its package.json; a module names a Python file. */
export function importerSuggestionKind(s: { name: string; path?: string }): ImporterSuggestionKind {
  if (s.path === undefined || /(?:^|\/)package\.json$/.test(s.path)) return 'package';
  return s.name === s.path ? 'file' : 'module';
}

const LABELS: Readonly<Record<ImporterSuggestionKind, readonly [string, string]>> = {
  file: ['file', 'files'],
  module: ['module', 'modules'],
  package: ['package name', 'package names'],
};

/** The suggestions in groups of one kind, each with its label (`files`, `package name`), groups in the order of their best suggestion. */
export function importerSuggestionGroups<S extends { name: string; path?: string }>(suggestions: readonly S[]): Array<{ label: string; items: S[] }> {
  const groups = new Map<ImporterSuggestionKind, S[]>();
  for (const s of suggestions) {
    const kind = importerSuggestionKind(s);
    const items = groups.get(kind);
    if (items) items.push(s);
    else groups.set(kind, [s]);
  }
  return [...groups].map(([kind, items]) => ({ label: LABELS[kind][items.length === 1 ? 0 : 1], items }));
}
