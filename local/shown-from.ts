// Repository paths as a person reads them from a folder of the repository
// (docs/cli.md, Paths): relative to it, as rg and git grep print them, so a
// path printed works as typed there. The CLI shows its own output this way
// (client/paths.ts), and the daemon shows the paths its notes and refusals
// name this way for a client that says where it stands (tools/call's
// `shown_from`): one rule on both ends.
import { escapeRegExp } from './regexp.js';
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { posix } = process.getBuiltinModule('node:path');

/** A root-relative path read from `here`, a folder of the root with its "/" ("src/"; "" the root itself): "../docs/a.md". */
export function shownFrom(here: string, rootPath: string): string {
  if (here === '') return rootPath;
  const out = posix.relative(here, rootPath);
  // A path that ends with "/" (a folder) keeps it.
  return rootPath.endsWith('/') && out !== '' ? `${out}/` : out || '.';
}

/**
 * `text` with each of `paths` (root-relative) shown by `show`, where the text
 * names it whole — bounded as a message quotes a path (start, blank, quote or
 * bracket before; end, blank, quote, bracket or punctuation after). Only those
 * exact paths are touched: the rest of the text is as it was.
 */
export function withPathsShown(text: string, paths: Iterable<string>, show: (rootPath: string) => string): string {
  const shown = new Map<string, string>();
  for (const rootPath of paths) {
    const here = show(rootPath);
    if (rootPath === '' || here === rootPath) continue;
    shown.set(rootPath, here);
    // Quoted as JSON, a name with a control character (ESC, say) has it written as a \\u escape: shown escaped too.
    const quoted = JSON.stringify(rootPath).slice(1, -1);
    if (quoted !== rootPath) shown.set(quoted, JSON.stringify(here).slice(1, -1));
  }
  if (shown.size === 0) return text;
  // One pass over the text, so a path already shown from here is never taken for another root path ("x/y.ts" from "apps/").
  const alternatives = [...shown.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const named = new RegExp(`(^|[\\s"'(])(${alternatives.join('|')})(?=$|[\\s"'):,;])`, 'g');
  return text.replace(named, (_m, before: string, rootPath: string) => `${before}${shown.get(rootPath)!}`);
}
