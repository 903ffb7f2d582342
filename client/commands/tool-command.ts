// The five tool commands (search, symbol, read, importers, diff; one file
// each says how its flags make the tool's arguments): one tool call to the
// root's daemon, which validates it strictly — the CLI checks nothing else —,
// and its answer printed. --json prints the tool's own answer; the text form
// is the shape grep and rg users scan and editors jump to: `path:line: text`,
// one line per source line; a definition found by `symbol` is one line
// (`path:start-end: kind name  first line`) unless its body is asked for. On
// a terminal, paths, line numbers and the matched text are coloured as rg
// colours them.
import { RpcCode, RpcError } from '../../protocol/jsonrpc.js';
import { Methods, type Evidence, type PlacedCall, type ToolResult } from '../../protocol/messages.js';
import {
  defineCommand, flag, HELP, JSON_FLAG, REPO, UsageError, withDaemon, type Command, type FlagSpecs, type Parsed,
} from '../command.js';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, READ_MAX_LINES, SNIPPET_MAX_CHARS, SYMBOL_KINDS } from '../../indexer/query/limits.js';
import type { TextItem } from './read-span.js';
import type { Client } from '../connection.js';
import { messageHere, placeOf, type Place } from '../paths.js';
import { mixedNote, ofOneGeneration } from './one-generation.js';
import type { FolderHere } from '../left-out-folder.js';
import { lineSpan } from '../line-span.js';
import { commandLine, type CommandPlace } from '../command-line.js';
import { withCommands, type CallPlace } from '../call-words.js';
import { answeredFrom } from '../catching-up-note.js';
import {
  human, join, line, paint, path, stderr, stdout, text, thousands, type Colour, type Part, type Screen, type Shown,
} from '../../local/human.js';

export const COLOR = { color: flag.choice('WHEN', ['auto', 'always', 'never'], 'colour paths, line numbers and matches: auto (a terminal without NO_COLOR), always, never') };
/** The paging arguments of every list tool. */
export const PAGE = {
  limit: flag.int(`items to show (1-${MAX_LIMIT}, default ${DEFAULT_LIMIT})`, { range: [1, MAX_LIMIT] }),
  offset: flag.int('skip this many items first (default 0): --offset 20 is the second page', { range: [0, MAX_OFFSET] }),
};
export const PATH_PREFIX = { 'path-prefix': flag.string('P', 'only paths starting with P (relative to the current folder; / is the whole repository)', { path: true }) };
/** The flags of a command that looks in the current folder first (docs/cli.md, Scope). */
export const SCOPE = { ...PATH_PREFIX, all: flag.boolean('look in the whole repository, not only the current folder (as --path-prefix /)') };
/** The paging flags' values as tool arguments. */
export const pageArgs = (p: { flags: { limit?: number; offset?: number } }): Record<string, unknown> => ({ limit: p.flags.limit, offset: p.flags.offset });

/** The flags every tool command takes after its own. */
type CommonFlags = typeof REPO & typeof JSON_FLAG & typeof COLOR & typeof HELP;

interface ToolCommandSpec<F extends FlagSpecs> {
  tool: string;
  usage: string;
  summary: string;
  details?: string;
  examples: readonly string[];
  flags: F;
  /** The tool's arguments from the command line; `place.toRoot` turns a path argument root-relative. */
  build(p: Parsed<F & CommonFlags>, place: Place): Record<string, unknown>;
  /** How the text output looks (highlight, bodies, a module asked for by its path); `args` as `build` made them, `r` the answer printed. */
  format?(p: Parsed<F & CommonFlags>, args: Record<string, unknown>, place: Place, r: ToolResult): FormatOptions;
  /** Makes the call (default: one tools/call, `shownFrom` as callTool takes it); `read` makes several to print a file whole. */
  call?(client: Client, args: Record<string, unknown>, p: Parsed<F & CommonFlags>, place: Place, shownFrom: string | undefined): Promise<ToolResult>;
  /** Runs before any daemon is started or asked: a refusal the command can make alone (diff outside git) is made here. */
  before?(place: Place): Promise<void>;
  /** Runs after the call, on the same connection: a note printed below the answer (read's "more follows"). */
  after?(r: ToolResult, args: Record<string, unknown>, client: Client, place: Place): Promise<Shown | null>;
}

/** One tools/call; `shownFrom`: the folder a person reads its notes and refusal from (ToolsCallParams.shown_from). */
export const callTool = (client: Client, tool: string, args: Record<string, unknown>, shownFrom?: string): Promise<ToolResult> =>
  withShownFrom(shownFrom, (from) => client.request(Methods.toolsCall, { name: tool, arguments: defined(args), ...(from ? { shown_from: from } : {}) }));

/**
 * `send(shownFrom)`, and, when the daemon is older than `shown_from` (it
 * refuses a param it does not know), `send(undefined)`: its notes then name
 * paths from the root, as they did, rather than the command failing until the
 * daemon is restarted.
 */
export async function withShownFrom<R>(shownFrom: string | undefined, send: (shownFrom: string | undefined) => Promise<R>): Promise<R> {
  if (shownFrom === undefined) return send(undefined);
  try {
    return await send(shownFrom);
  } catch (e) {
    if (!olderDaemon(e, 'shown_from')) throw e;
    return send(undefined);
  }
}

/** Whether `e` is a daemon's refusal of `param` as a param it does not know: a daemon older than the client (zod's wording, or issueWords' since). */
export function olderDaemon(e: unknown, param: string): boolean {
  return e instanceof RpcError && e.code === RpcCode.INVALID_PARAMS && /Unrecognized key|unknown key/.test(e.message) && e.message.includes(JSON.stringify(param));
}

function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** A friendly command = one tool call built from flags; the daemon still validates it strictly. */
export function toolCommand<F extends FlagSpecs>(s: ToolCommandSpec<F>): Command<F & CommonFlags> {
  const flags = { ...s.flags, ...REPO, ...JSON_FLAG, ...COLOR, ...HELP };
  return defineCommand({
    usage: s.usage, summary: s.summary, details: s.details, examples: s.examples, flags,
    async run(p) {
      const place = await placeOf(p);
      const args = s.build(p, place);
      // Path flags are converted here, so a command adding one (`path: true`) needs nothing more.
      for (const [name, spec] of Object.entries<FlagSpecs[string]>(flags)) {
        const arg = name.replace(/-/g, '_');
        const value = args[arg];
        // The root itself as a prefix keeps everything: no prefix at all.
        if (spec.path && typeof value === 'string') args[arg] = place.prefixToRoot(value);
      }
      const scoped = scopeOf(flags, p, place);
      if (scoped !== undefined) args.path_prefix = scoped;
      await s.before?.(place);
      await withDaemon(place.root, p, async (client) => {
        const { whileBuilding } = await import('../build-wait.js');
        // The text form names every path from here, the paths the daemon's notes and refusals name too; --json keeps the tools' own.
        const from = p.flags.json ? undefined : place.here ?? undefined;
        const ask = (c: Client, a: Record<string, unknown>): Promise<ToolResult> =>
          whileBuilding(c, s.call ? s.call(c, a, p, place, from) : callTool(c, s.tool, a, from)).catch((e: unknown) => {
            throw p.flags.json ? e : refusalHere(e, place, pathArgs(a));
          });
        // The answer and its follow-up's line, of one index generation (one-generation.ts), printed once both are in.
        const { value: a, generations } = await ofOneGeneration(client, scoped !== undefined && !p.flags.json
          ? scopedRound(ask, s.tool, args, scoped)
          : answering({ call: (c) => ask(c, args), followUp: p.flags.json ? undefined : s.after && ((c, r) => s.after!(r, args, c, place)) }));
        await printResult(a.result, p, { ...s.format?.(p, args, place, a.result), shown: (f) => place.shown(f), place }, s.tool, place);
        if (p.flags.json) return;
        for (const note of [a.note, mixedNote(generations)]) if (note) stderr().line(note);
      });
      return 0;
    },
  });
}

/** A refusal that names the paths it was sent, naming them from here, as the command's own output does, and each call it names (its `calls`) as the command that makes it. */
function refusalHere(e: unknown, place: Place, paths: string[]): unknown {
  if (!(e instanceof RpcError)) return e;
  const d = e.data as { message?: unknown; calls?: unknown } | undefined;
  const calls = Array.isArray(d?.calls) ? d.calls as PlacedCall[] : [];
  const here = (m: string): string => withCommands(m, calls, place, (words) => messageHere(place, toolWords(words, place.here), paths));
  const data = d !== null && typeof d === 'object' && typeof d.message === 'string' ? { ...d, message: here(d.message) } : d;
  return new RpcError(e.code, here(e.message), data);
}

/** The root-relative paths among a call's arguments (a module name with a "/" is a file's path; a dotted one is no path). */
function pathArgs(args: Record<string, unknown>): string[] {
  const paths = [args.path, args.path_prefix, typeof args.module_name === 'string' && args.module_name.includes('/') ? args.module_name : undefined];
  // A folder is sent with its "/" ("src/pkg/"); a refusal names it without.
  return paths.filter((v): v is string => typeof v === 'string').flatMap((v) => (v.endsWith('/') ? [v, v.slice(0, -1)] : [v]));
}

/**
 * The prefix a command that looks in the current folder first (it takes
 * --all) gives its tool: the current folder, when it is a subfolder of the
 * root and neither --all nor --path-prefix says otherwise; else undefined.
 */
function scopeOf(flags: FlagSpecs, p: Parsed, place: Place): string | undefined {
  if (!Object.hasOwn(flags, 'all')) return undefined;
  if (p.flags.all && p.flags['path-prefix'] !== undefined) throw new UsageError('--all and --path-prefix cannot go together: --all is --path-prefix /');
  if (p.flags.all || p.flags['path-prefix'] !== undefined) return undefined;
  return place.here || undefined;
}

/** What a tool command prints: the answer, and the line its follow-up call makes (null: none). */
export interface Answer { result: ToolResult; note: Shown | null }

/** One round of a command's calls (ofOneGeneration makes it again while they span generations): the answer, then its follow-up. */
export function answering(how: {
  call: (c: Client) => Promise<ToolResult>;
  followUp?: (c: Client, r: ToolResult) => Promise<Shown | null>;
}): (client: Client) => Promise<Answer> {
  return async (client) => {
    const result = await how.call(client);
    return { result, note: (await how.followUp?.(client, result)) ?? null };
  };
}

/**
 * One round of a command scoped to the current folder `folder` (docs/cli.md,
 * Scope): the folder's answer and how many more the whole repository has, as
 * git grep would; but when the folder has none and the repository has some,
 * the repository's answer, with a line saying so — an empty answer over
 * "N more" only sends the reader to type --all.
 */
function scopedRound(ask: (c: Client, args: Record<string, unknown>) => Promise<ToolResult>, tool: string, args: Record<string, unknown>, folder: string): (c: Client) => Promise<Answer> {
  return async (c) => {
    const result = await ask(c, args);
    if (result.total > 0) return { result, note: await wholeRepositoryNote(c, ask, args, result) };
    const whole = await ask(c, { ...args, path_prefix: undefined });
    if (whole.total === 0) return { result, note: null };
    return { result: whole, note: human`nothing under ${path(folder)}; showing the whole repository's ${whole.total} (as --all)` };
  };
}

/**
 * How many matches the whole repository has besides those of the current
 * folder, from a second call that counts (one item, the same arguments but
 * the prefix), made as the command makes its calls (`ask`: importers of a
 * path written without its extension count that file's), and how to see
 * them; null when there are none.
 */
export async function wholeRepositoryNote(client: Client, ask: (c: Client, args: Record<string, unknown>) => Promise<ToolResult>, args: Record<string, unknown>, here: ToolResult): Promise<Shown | null> {
  const all = await ask(client, { ...args, path_prefix: undefined, limit: 1, offset: 0 });
  const more = all.total - here.total;
  if (more <= 0) return null;
  return human`${more} more in the whole repository: add --all (or --path-prefix /) to see them`;
}

/** stdout as the text form is written to it: coloured as --color says (auto: a terminal without NO_COLOR). */
export function outScreen(p: { flags: { color?: 'auto' | 'always' | 'never' } }): Screen {
  const when = p.flags.color ?? 'auto';
  return when === 'auto' ? stdout() : stdout().withColour(when === 'always');
}

/** The answer as the text form (or --json) prints it; the notes' and suggestions' modules load only for an answer that has some. */
async function printResult(r: ToolResult, p: Parsed<CommonFlags>, fmt: FormatOptions, tool: string, place: Place): Promise<void> {
  if (p.flags.json) {
    stdout().json(r);
    return;
  }
  if (r.evidence.length) outScreen(p).line(formatEvidence(r.evidence, fmt));
  stderr().line(formatFooter(r));
  for (const note of await noteLines(r, place)) stderr().line(note);
  if (!r.suggestions?.length) return;
  const { formatSuggestions } = await import('../suggestions.js');
  const { kind, 'path-prefix': prefix } = p.flags as { kind?: string; 'path-prefix'?: string };
  const suggestions = formatSuggestions(r, fmt.shown, { kind, outside: prefix !== undefined ? 'outside --path-prefix' : 'outside this folder', byKind: tool === 'find_importers' });
  if (suggestions) stderr().line(suggestions);
}

/** An answer's notes as `note:` lines, the one on a left-out folder (its `left_out_folder`) with the command typed (`argv`) again. */
export async function noteLines(r: Pick<ToolResult, 'notes' | 'left_out_folder' | 'note_calls'>, place: FolderHere & NotePlace, argv: readonly string[] = process.argv.slice(2)): Promise<Shown[]> {
  const leftOut = r.left_out_folder;
  // Loaded only for an answer that has the note: a plain call never needs it (docs/performance/cli-start.md).
  const { leftOutFolderNote } = leftOut !== undefined ? await import('../left-out-folder.js') : { leftOutFolderNote: undefined };
  return (r.notes ?? []).map((note, i) => (leftOut !== undefined && i === leftOut.note && leftOutFolderNote
    ? leftOutFolderNote(leftOut, place, argv) : formatNote(note, place, (r.note_calls ?? []).filter((c) => c.note === i))));
}

/** Where a note is printed: where the command ran, for the commands it names. */
export type NotePlace = CommandPlace & CallPlace;

/**
 * A note of the daemon's answer, as a `note:` line in the command line's
 * words: each of its `calls` (its note_calls, where it writes them) as the
 * command that makes it from `place` (call-words.ts, command-line.ts), and the
 * tools and arguments its other words name as the command line names them.
 */
export function formatNote(note: string, place: NotePlace, calls: readonly PlacedCall[] = []): Shown {
  return human`note: ${line(withCommands(note, calls, place, (words) => toolWords(words, place.here)))}`;
}

/** The command each tool is, as a note or refusal names it. */
const COMMAND_OF_TOOL: Record<string, string> = { search_code: 'search', find_symbol: 'symbol', find_importers: 'importers', read_evidence: 'read', read_git_diff: 'diff' };

/**
 * The words of a tool's note or refusal outside the calls it names (those
 * are made into commands: withCommands) as the command line says them: every
 * tool named is its command (`search_code, find_symbol and find_importers
 * look inside it` names three), `path_prefix` is `--path-prefix`,
 * `case_sensitive` is `--case-sensitive`; a path_prefix that is the
 * current folder (`here`, with its "/") is no flag to type: a command run
 * in a folder looks in it already (`--path-prefix "."` read as a typo).
 */
function toolWords(text: string, here: string | null): string {
  const scoped = here ? text.split(`with path_prefix ${JSON.stringify(here)}`).join('as typed here (a command run in a folder looks in that folder)') : text;
  return scoped.replace(/\b(search_code|find_symbol|find_importers|read_evidence|read_git_diff)\b/g, (tool) => `evidex ${COMMAND_OF_TOOL[tool]}`)
    .replace(/\bpath_prefix /g, '--path-prefix ').replace(/\bcase_sensitive\b/g, '--case-sensitive');
}

// ---- the text form ---------------------------------------------------------

const ROLE = { path: '35', line: '32', match: '1;31', name: '1', dim: '2' } as const satisfies Record<string, Colour>;
type Role = keyof typeof ROLE;

export interface FormatOptions {
  /** Text to highlight in lines and paths: the search query. */
  highlight?: { text: string; caseSensitive: boolean };
  /** Definitions in full (`symbol --body`) instead of one line each. */
  body?: boolean;
  /** A root-relative path as printed (Place.shown: relative to the current folder); default as is. */
  shown?: (rootPath: string) => string;
  /** The items' `name` is a root-relative path (`importers lib/log.ts`): printed as paths are. */
  nameIsPath?: boolean;
  /** Where the command ran, so a command printed works as typed there (command-line.ts). */
  place?: CommandPlace;
}

const DEFINITION_KINDS: ReadonlySet<string> = new Set(SYMBOL_KINDS);

/** Colours (shown only where the screen shows colours) and the search query's highlight, over text shown by local/human.ts's rule. */
class Painter {
  constructor(private readonly opts: FormatOptions) {}
  /** A root-relative path as this output prints it. */
  file(rootPath: string): string {
    return this.opts.shown ? this.opts.shown(rootPath) : rootPath;
  }
  paint(role: Role, text: Part): Shown {
    return paint(ROLE[role], text);
  }
  /** `text` (a line of a file, or a path with `asPath`) with every occurrence of the highlighted needle painted (outside `role`'s own colour). */
  marked(text: string, role?: Role, asPath = false): Shown {
    const show = asPath ? path : line;
    const plain = (t: string): Shown => (role ? this.paint(role, show(t)) : show(t));
    const h = this.opts.highlight;
    if (!h || h.text === '') return plain(text);
    const hay = h.caseSensitive ? text : text.toLowerCase();
    const needle = h.caseSensitive ? h.text : h.text.toLowerCase();
    // Lower-casing can change a string's length (rare letters); then highlighting would be off by some characters.
    if (hay.length !== text.length) return plain(text);
    const parts: Shown[] = [];
    let from = 0;
    for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + needle.length)) {
      parts.push(plain(text.slice(from, at)), this.paint('match', show(text.slice(at, at + needle.length))));
      from = at + needle.length;
    }
    parts.push(plain(text.slice(from)));
    return join(parts, '');
  }
  /**
   * What an item's header says it is: its name, or, for an importer found
   * through re-exporting files, what the statement itself imports — the first
   * file of its `via` chain (the `# via` line names the chain), not the module
   * asked for, which the statement does not name.
   */
  target(e: Evidence): Shown {
    if (e.via?.length) return path(this.file(e.via[0]));
    return this.opts.nameIsPath ? path(this.file(e.name)) : line(e.name);
  }
  /** `path:line:` (or `path:start-end:`) as the prefix of an output line. */
  where(rootPath: string, lineNo: string, markPath = false): Shown {
    const file = this.file(rootPath);
    return human`${markPath ? this.marked(file, 'path', true) : this.paint('path', path(file))}:${this.paint('line', lineNo)}:`;
  }
}

/** The lines of `items`; see the file comment for the shapes. Every text of an item is shown by the rule of local/human.ts. */
export function formatEvidence(items: readonly TextItem[], opts: FormatOptions = {}): Shown {
  const p = new Painter(opts);
  const out: Shown[] = [];
  for (const e of items) {
    const span = lineSpan(e);
    if (e.kind === 'diff') {
      out.push(human`${p.where(e.path, span)} diff`, text(e.snippet));
      continue;
    }
    if (e.kind === 'path_match') {
      // Line 1, so an editor opens the file; the marker says it was the path that matched.
      out.push(human`${p.where(e.path, '1', true)} ${p.paint('dim', '[path match]')}`);
      continue;
    }
    const lines = e.snippet.split('\n');
    // An importer found through re-exporting files (`importers --via-reexports`) says which, in a line of its own.
    if (e.via?.length) out.push(p.paint('dim', human`# via ${join(e.via.map((v) => path(p.file(v))), ' → ')}`));
    if (DEFINITION_KINDS.has(e.kind) && !opts.body) {
      out.push(human`${p.where(e.path, span)} ${e.kind} ${p.paint('name', e.name)}  ${headLine(lines)}`);
      continue;
    }
    // A multi-line item (a definition with --body, an import spanning lines) gets a header saying what it is.
    // Marked with '#' so it cannot be mistaken for a `path:line: text` line of the file.
    if (e.start_line !== e.end_line && e.kind !== 'source') out.push(p.paint('dim', human`# ${e.kind} ${p.target(e)} at ${path(p.file(e.path))}:${span}`));
    // A search hit on a line cut before the match: the part of the line around it, marked as such.
    if (e.excerpt) {
      out.push(human`${p.where(e.path, String(e.start_line))} ${p.paint('dim', '…')}${p.marked(e.excerpt.text)}`);
      out.push(human`${path(p.file(e.path))}: … (line ${e.start_line} is longer than the ${SNIPPET_CHARS} characters a tool returns: shown from character ${thousands(e.excerpt.column)}, around the match)`);
      continue;
    }
    const cut = new Set(e.cut_lines);
    lines.forEach((t, i) => {
      const n = e.start_line + i;
      out.push(human`${p.where(e.path, String(n))} ${p.marked(t)}`);
      if (cut.has(n)) out.push(lineCutNote(p.file(e.path), n));
    });
    if (e.truncated) out.push(readOnHint(p.file(e.path), e, lines.length, opts.place));
  }
  return join(out);
}

/** Why line `n` is shown cut: no tool returns more of one line than a snippet holds. */
const lineCut = (n: number): Shown => human`line ${n} cut at ${SNIPPET_CHARS} characters, the most a tool returns of one line`;

/** Says a line is shown cut (lineCut). */
function lineCutNote(file: string, n: number): Shown {
  return human`${path(file)}: … (${lineCut(n)})`;
}

/**
 * Where a tool's cut snippet of `e` (its first `shownLines` lines, the last
 * one cut) goes on: a working `evidex read` of at most READ_MAX_LINES lines
 * that starts past what was shown whole — at the cut line when the snippet
 * holds more than it, past it when the cut line is all it holds (read would
 * cut it again) — and never the same lines again.
 */
function readOnHint(file: string, e: Evidence, shownLines: number, place: CommandPlace | undefined): Shown {
  const cutAt = e.start_line + shownLines - 1;
  const from = shownLines > 1 ? cutAt : cutAt + 1;
  if (from > e.end_line) return lineCutNote(file, cutAt);
  const command = path(commandLine(place, ['read', `${file}:${from}-${Math.min(e.end_line, from + READ_MAX_LINES - 1)}`]));
  const what = shownLines > 1 ? human`snippet cut at ${thousands(e.snippet.length)} characters` : lineCut(cutAt);
  return human`${path(file)}: … (${what}; read on with \`${command}\`)`;
}

/** The tools' snippet cut, as the notes say it. */
const SNIPPET_CHARS = thousands(SNIPPET_MAX_CHARS);

/**
 * The line a definition is known by: its first line past the decorators
 * (`@setupmethod`, or `@app.route(` over several lines) and comments between
 * them that its span starts with — `def route(self, rule: str, ...)`, the
 * signature, not the decorator. Brackets are counted outside string
 * literals, so a decorator's arguments may span lines.
 */
export function headLine(lines: readonly string[]): string {
  let depth = 0;
  for (const l of lines) {
    const t = l.trim();
    if (depth === 0 && t !== '' && !t.startsWith('@') && !t.startsWith('#')) return t;
    const code = t.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|#.*$/g, '');
    for (const c of code) {
      if (c === '(' || c === '[' || c === '{') depth++;
      else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
    }
  }
  return lines[0].trim();
}

/** The one-line footer: how many shown of how many, and which index answered (answeredFrom). */
export function formatFooter(r: ToolResult, now: number = Date.now()): Shown {
  const shown = r.evidence.length;
  // Nothing on a page of a non-empty answer: the offset went past its end.
  const more = shown === 0 && r.total > 0 ? human` (the offset is past the last of them: --offset takes 0 to ${r.total - 1} here)`
    : r.total > shown ? human` (${r.total - shown} not shown: page with --offset and --limit)` : '';
  return human`${shown} of ${r.total} shown${more} · ${answeredFrom(r, now)}`;
}
