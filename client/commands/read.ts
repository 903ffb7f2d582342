// `evidex read PATH[:START[-END]]`: read_evidence from the command line. The
// text form prints every line asked for, reading on where a snippet's
// character cap cut it, and says how to go on past the line cap.
import { MAX_CONTEXT, READ_MAX_LINES, SNIPPET_MAX_CHARS } from '../../indexer/query/limits.js';
import { human, path, thousands } from '../../local/human.js';
import { RpcError } from '../../protocol/jsonrpc.js';
import { Methods, type ToolResult } from '../../protocol/messages.js';
import { flag, needPositionals, UsageError } from '../command.js';
import type { Client } from '../connection.js';
import { readOn } from './read-span.js';
import { commandLine } from '../command-line.js';
import { callTool, toolCommand } from './tool-command.js';

/** The END of `PATH:START-`: past any file's last line (read_evidence stops at the file's end). */
const TO_THE_END = Number.MAX_SAFE_INTEGER;

/**
 * `PATH[:START[-END]]` → read_evidence arguments. A bare PATH reads the file
 * from line 1, as much as one call returns (READ_MAX_LINES). Text after the
 * last ":" that is not a line range is a malformed range (a usage error),
 * unless the whole target names a file (`isFile`: a name may hold a colon).
 */
export function parseReadTarget(target: string, isFile: (path: string) => boolean = () => false): { path: string; start_line: number; end_line?: number } {
  // PATH:START-, open at the end, reads to the end of the file (as much as one read shows, then how to read on); PATH:-END from line 1.
  const m = /^(.*?):(?:(\d+)(?:-(\d*))?|-(\d+))$/.exec(target);
  if (m) {
    const start = m[4] !== undefined ? 1 : Number(m[2]);
    const end = m[4] !== undefined ? Number(m[4]) : m[3] === undefined ? undefined : m[3] === '' ? TO_THE_END : Number(m[3]);
    if (start === 0 || end === 0) throw new UsageError(`line 0 in ${JSON.stringify(target)}: lines are numbered from 1 (PATH:1 is the first line)`);
    if (end !== undefined && end < start) throw new UsageError(`lines ${start}-${end} in ${JSON.stringify(target)} end before they start: PATH:${end}-${start} reads them`);
    return { path: m[1], start_line: start, end_line: end };
  }
  const colon = target.lastIndexOf(':');
  const range = target.slice(colon + 1);
  if (colon > 0 && !range.includes('/') && !isFile(target)) {
    throw new UsageError(`malformed line range ${JSON.stringify(range)} in ${JSON.stringify(target)}: use PATH, PATH:START, PATH:START-END, PATH:START- or PATH:-END (START and END whole numbers)`);
  }
  return { path: target, start_line: 1, end_line: READ_MAX_LINES };
}

/**
 * The text form's read: the lines asked for (widened by `context`), at most
 * READ_MAX_LINES of them (`after` says how to read on), each read whole where
 * a snippet's character cut fell (read-span.ts). The first call is the one
 * typed, shortened to READ_MAX_LINES lines, so a refusal is the tool's own.
 */
async function readText(client: Client, args: Record<string, unknown>): Promise<ToolResult> {
  const { start, end, context } = spanOf(args);
  // The last line the first call may ask for, so that with its context it spans at most READ_MAX_LINES lines.
  const lastAsked = Math.min(end, Math.max(1, start - context) + READ_MAX_LINES - 1 - context);
  const first = await callTool(client, 'read_evidence', { ...args, end_line: lastAsked }).catch((e: unknown) => { throw inLines(e); });
  const e = first.evidence[0];
  if (!e) return first;
  // A span cut inside its first line (no next_start_line) gets read_evidence's last note: "holds none of lines …; read on with start_line …".
  // readOn has read those lines, so the note would tell the reader to do what this output just did. It names no path or call:
  // the notes before it (a symbolic link followed to the real path) keep theirs.
  const cutInFirstLine = e.truncated === true && e.next_start_line === undefined && e.end_line > e.start_line;
  const notes = cutInFirstLine ? first.notes?.slice(0, -1) : first.notes;
  const { notes: _, ...rest } = first;
  return { ...rest, ...(notes?.length ? { notes } : {}), evidence: [await readOn(client, e)] };
}

/** A refusal of a line past the file's end in the command's words: the line typed, not the tool's `start_line`. */
function inLines(e: unknown): unknown {
  if (!(e instanceof RpcError)) return e;
  const d = e.data as { code?: unknown; message?: unknown } | undefined;
  if (d?.code !== 'out_of_range') return e;
  const words = (m: string): string => m.replace(/^start_line (\d+) is past/, 'line $1 is past');
  return new RpcError(e.code, words(e.message), typeof d.message === 'string' ? { ...d, message: words(d.message) } : d);
}

/** The lines a read asks for: START, END and the context on each side. */
function spanOf(args: Record<string, unknown>): { start: number; end: number; context: number } {
  const start = args.start_line as number;
  return { start, end: (args.end_line as number | undefined) ?? start, context: (args.context as number | undefined) ?? 0 };
}

/** Whether line `line` of `path` exists: the way to know a read stopped at the cap, not at the end of the file. */
async function hasLine(client: Client, path: string, line: number): Promise<boolean> {
  try {
    await client.request(Methods.toolsCall, { name: 'read_evidence', arguments: { path, start_line: line } });
    return true;
  } catch {
    return false;
  }
}

export const command = toolCommand({
  tool: 'read_evidence',
  usage: 'evidex read PATH[:START[-END]] [--context N]',
  summary: `print lines of an indexed file (at most ${READ_MAX_LINES} at a time)`,
  details: `PATH alone prints the file from line 1, up to ${READ_MAX_LINES} lines, and says how to read on; `
    + `PATH:START prints that line, PATH:START-END those lines (past ${READ_MAX_LINES}, the first ${READ_MAX_LINES} and how to read on), `
    + 'PATH:START- from START to the end, PATH:-END from line 1 to END. '
    + `Every line is printed whole, read on past the tools' ${thousands(SNIPPET_MAX_CHARS)}-character snippet cut, but for a single line longer than that. `
    + 'PATH is relative to the current folder.',
  examples: ['evidex read src/app.py', 'evidex read src/app.py:120-160', 'evidex read app.py:42 --context 5'],
  flags: { context: flag.int(`extra lines on each side (0-${MAX_CONTEXT})`, { range: [0, MAX_CONTEXT] }) },
  build: (p, place) => {
    needPositionals(p, 1, 'evidex read PATH[:START[-END]]');
    const t = parseReadTarget(p.positionals[0], (f) => place.namesFile(f));
    return { ...t, path: place.fileToRoot(t.path), context: p.flags.context };
  },
  // --json prints the tool's own answer; the text output every line asked for.
  // A line past the end is said in the command's words both ways (inLines); `evidex call` keeps the tool's.
  call: (client, args, p) => (p.flags.json ? callTool(client, 'read_evidence', args).catch((e: unknown) => { throw inLines(e); }) : readText(client, args)),
  async after(r, args, client, place) {
    const e = r.evidence[0];
    if (!e) return null;
    const { start, end, context } = spanOf(args);
    // PATH alone (lines 1-400 asked) reads on to the next page; a range asked for past the cap, to its end.
    const fromTheTop = start === 1 && end === READ_MAX_LINES && context === 0;
    const wanted = fromTheTop ? e.end_line + READ_MAX_LINES : end + context;
    if (e.end_line >= wanted || (fromTheTop && e.end_line < READ_MAX_LINES)) return null;
    const shown = place.shown(e.path);
    if (!(await hasLine(client, e.path, e.end_line + 1))) {
      // A range asked for past the file's end is cut at its last line: said, not left for the reader to notice.
      return !fromTheTop && end !== TO_THE_END && end > e.end_line ? human`note: ${path(shown)} ends at line ${e.end_line}: lines ${e.end_line + 1}-${end} asked for are past its end` : null;
    }
    const to = Math.min(wanted, e.end_line + READ_MAX_LINES);
    return human`${path(shown)}: stopped at line ${e.end_line} (${READ_MAX_LINES} lines at a time); read on with \`${path(commandLine(place, ['read', `${shown}:${e.end_line + 1}-${to}`]))}\``;
  },
});
