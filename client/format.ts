// Human output of evidence, in the shape grep and rg users scan and editors
// jump to: `path:line: text`, one line per source line; a definition found by
// `symbol` is one line (`path:start-end: kind name  first line`) unless its
// body is asked for. On a terminal, paths, line numbers and the matched text
// are coloured as rg colours them. Scripts use --json instead.
import type { Evidence, ToolResult } from '../protocol/messages.js';

const SGR = { path: '35', line: '32', match: '1;31', name: '1', dim: '2' } as const;
type Role = keyof typeof SGR;

export interface FormatOptions {
  /** ANSI colours (decided by the caller from --color, NO_COLOR and the terminal). */
  color?: boolean;
  /** Text to highlight in lines and paths: the search query. */
  highlight?: { text: string; caseSensitive: boolean };
  /** Definitions in full (`symbol --body`) instead of one line each. */
  body?: boolean;
}

const DEFINITION_KINDS: ReadonlySet<string> = new Set(['class', 'function', 'method', 'variable', 'interface', 'type', 'enum', 'namespace']);

class Painter {
  constructor(private readonly opts: FormatOptions) {}
  paint(role: Role, text: string): string {
    return this.opts.color && text ? `\x1b[${SGR[role]}m${text}\x1b[0m` : text;
  }
  /** `text` with every occurrence of the highlighted needle painted (outside `role`'s own colour). */
  marked(text: string, role?: Role): string {
    const h = this.opts.highlight;
    const plain = (t: string) => (role ? this.paint(role, t) : t);
    if (!this.opts.color || !h || h.text === '') return plain(text);
    const hay = h.caseSensitive ? text : text.toLowerCase();
    const needle = h.caseSensitive ? h.text : h.text.toLowerCase();
    // Lower-casing can change a string's length (rare letters); then highlighting would be off by some characters.
    if (hay.length !== text.length) return plain(text);
    let out = '';
    let from = 0;
    for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + needle.length)) {
      out += plain(text.slice(from, at)) + this.paint('match', text.slice(at, at + needle.length));
      from = at + needle.length;
    }
    return out + plain(text.slice(from));
  }
  /** `path:line:` (or `path:start-end:`) as the prefix of an output line. */
  where(path: string, line: string, markPath = false): string {
    return `${markPath ? this.marked(path, 'path') : this.paint('path', path)}:${this.paint('line', line)}:`;
  }
}

/** The lines of `items`; see the file comment for the shapes. */
export function formatEvidence(items: readonly Evidence[], opts: FormatOptions = {}): string {
  const p = new Painter(opts);
  const out: string[] = [];
  for (const e of items) {
    const span = `${e.start_line}-${e.end_line}`;
    if (e.kind === 'diff') {
      out.push(`${p.where(e.path, span)} diff`, e.snippet);
      continue;
    }
    if (e.kind === 'path_match') {
      // Line 1, so an editor opens the file; the marker says it was the path that matched.
      out.push(`${p.where(e.path, '1', true)} ${p.paint('dim', '[path match]')}`);
      continue;
    }
    const lines = e.snippet.split('\n');
    // An importer found through re-exporting files (`importers --via-reexports`) says which, in a line of its own.
    const via = (e as Evidence & { via?: unknown }).via;
    if (Array.isArray(via) && via.length) out.push(p.paint('dim', `# via ${via.map(String).join(' → ')}`));
    if (DEFINITION_KINDS.has(e.kind) && !opts.body) {
      out.push(`${p.where(e.path, span)} ${e.kind} ${p.paint('name', e.name)}  ${lines[0].trim()}`);
      continue;
    }
    // A multi-line item (a definition with --body, an import spanning lines) gets a header saying what it is.
    // Marked with '#' so it cannot be mistaken for a `path:line: text` line of the file.
    if (e.start_line !== e.end_line && e.kind !== 'source') out.push(p.paint('dim', `# ${e.kind} ${e.name} at ${e.path}:${span}`));
    lines.forEach((text, i) => out.push(`${p.where(e.path, String(e.start_line + i))} ${p.marked(text)}`));
    if (e.truncated) {
      const shownTo = e.start_line + lines.length - 1;
      out.push(`${e.path}: … (snippet cut at ${e.snippet.length.toLocaleString('en')} characters; read on with \`evidex read ${e.path}:${shownTo}-${e.end_line}\`)`);
    }
  }
  return out.join('\n');
}

/** TypeScript/JavaScript import statements by outcome, as `evidex index` and `evidex daemon status` print them (null: none indexed, or an older daemon). */
export function formatTsImports(c: { files: number; resolved: number; unresolved: { external: number; missing: number; config: number } } | undefined): string | null {
  if (!c || c.files === 0) return null;
  const u = c.unresolved;
  const all = c.resolved + u.external + u.missing + u.config;
  return `${all} imports in ${c.files} TS/JS files: ${c.resolved} in the repository, ${u.external} external packages, `
    + `${u.missing} missing, ${u.config} under an unreadable config`;
}

/** The one-line footer: how many shown of how many, and which index generation answered. */
export function formatFooter(r: ToolResult): string {
  const shown = r.evidence.length;
  const more = r.total > shown ? ` (${r.total - shown} not shown: page with --offset and --limit)` : '';
  return `${shown} of ${r.total} shown${more} · index generation ${r.generation}`;
}
