// Human output of evidence: `path:line: text`, one line per source line, so
// editors and terminals can jump to it. Scripts use --json instead.
import { SNIPPET_MAX_CHARS, type Evidence } from '../indexer/evidence.js';
import type { ToolResult } from '../indexer/api.js';

/** Prints each item as `path:line: text` lines; multi-line items get a header naming what they are. */
export function formatEvidence(items: readonly Evidence[]): string {
  const out: string[] = [];
  for (const e of items) {
    if (e.kind === 'diff') {
      out.push(`${e.path}:${e.start_line}-${e.end_line}: diff`);
      out.push(e.snippet);
      continue;
    }
    const lines = e.snippet.split('\n');
    if (e.kind === 'path_match') {
      out.push(`# path match: ${e.path}`);
      continue;
    }
    // A multi-line item (a definition, an import spanning lines) gets a header saying what it is.
    // Marked with '#' so it cannot be mistaken for a `path:line: text` line of the file.
    if (e.start_line !== e.end_line && e.kind !== 'source') out.push(`# ${e.kind} ${e.name} at ${e.path}:${e.start_line}-${e.end_line}`);
    lines.forEach((text, i) => out.push(`${e.path}:${e.start_line + i}: ${text}`));
    if (e.truncated) out.push(`${e.path}: … (snippet cut at ${SNIPPET_MAX_CHARS.toLocaleString('en')} characters; read more with \`evidex read ${e.path}:${e.start_line + lines.length - 1}-${e.end_line}\`)`);
  }
  return out.join('\n');
}

/** The one-line footer: how many shown of how many, and which index generation answered. */
export function formatFooter(r: ToolResult): string {
  const shown = r.evidence.length;
  const more = r.total > shown ? ` (${r.total - shown} not shown: page with --offset and --limit)` : '';
  return `${shown} of ${r.total} shown${more} · index generation ${r.generation}`;
}
