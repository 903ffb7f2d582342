// Lines of a file however many and however long, for the text output of
// `read` and `symbol --body`: read_evidence answers at most READ_MAX_LINES
// lines a call and cuts its snippet at 4,000 characters (the contract), so
// the CLI reads on in further calls. A single line longer than the cut cannot
// be read further by any tool: it is kept cut, and its number said.
import { READ_MAX_LINES } from '../../indexer/query/limits.js';
import type { Evidence } from '../../protocol/messages.js';
import type { Client } from '../connection.js';
import { callTool } from './tool-command.js';

/** An item of the text output: a tool's item, or lines read whole from several, with the lines still cut. */
export type TextItem = Evidence & {
  /** Lines shown only up to the tool's cut (each longer than one snippet holds). */
  cut_lines?: readonly number[];
};

/**
 * `item` (read_evidence's or find_symbol's answer over lines
 * start_line..end_line, its snippet perhaps cut) with every one of its lines:
 * where the cut fell, the rest is read in calls of at most READ_MAX_LINES
 * lines. Unchanged when nothing was cut.
 */
export async function readOn(client: Client, item: Evidence): Promise<TextItem> {
  if (!item.truncated) return item;
  const lines: string[] = [];
  const cut: number[] = [];
  take(item, lines, cut);
  while (item.start_line + lines.length <= item.end_line) {
    const from = item.start_line + lines.length;
    const to = Math.min(item.end_line, from + READ_MAX_LINES - 1);
    const next = (await callTool(client, 'read_evidence', { path: item.path, start_line: from, end_line: to })).evidence[0];
    // The file got shorter since the first call: what is there is all there is.
    if (!next || next.start_line !== from) break;
    take(next, lines, cut);
    if (!next.truncated && next.end_line < to) break;
  }
  const { truncated: _, ...whole } = item;
  return { ...whole, end_line: item.start_line + lines.length - 1, snippet: lines.join('\n'), ...(cut.length ? { cut_lines: cut } : {}) };
}

/**
 * Appends the whole lines of `e`'s snippet to `lines`. A snippet cut inside
 * its last line leaves that line to be read again from its start by the next
 * call; a snippet that is one cut line keeps it cut (noted in `cut`), as no
 * call returns more of it. Each call so adds at least one line.
 */
function take(e: Evidence, lines: string[], cut: number[]): void {
  const got = e.snippet.split('\n');
  if (e.truncated && got.length > 1) got.pop();
  else if (e.truncated) cut.push(e.start_line);
  lines.push(...got);
}
