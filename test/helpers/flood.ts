// A greedy client and the tree it floods the daemon with (issue 31, point 4):
// one client pipelining searches that each match every line of the tree over
// several connections, while another asks for one symbol. Shared by the
// fairness test (which asserts the order of service) and the bench (which
// times the other client's wait).
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { rawExchange } from './daemon.js';
import { assertEvidenceChecks } from './evidence.js';
import { write } from './fs.js';

/** The query every line of a flood tree holds once. */
export const FLOOD_QUERY = 'flood_marker';
/** The one definition of a flood tree, in its last file: what the other client asks for. */
export const LONE_SYMBOL = 'lonely_needle';

/** Writes `files` Python files of `lines` lines each under `root`: every line matches FLOOD_QUERY; the last file defines LONE_SYMBOL. */
export function writeFloodTree(root: string, files: number, lines: number): void {
  const body: string[] = [];
  for (let i = 0; i < lines; i++) body.push(`flood_marker_${i} = ${i}  # flood_marker`);
  const text = `${body.join('\n')}\n`;
  const tree: Record<string, string> = {};
  const width = String(files).length;
  for (let f = 0; f < files; f++) tree[`flood/m${String(f).padStart(width, '0')}.py`] = text;
  tree['zz_quiet.py'] = `def ${LONE_SYMBOL}():\n    return 1\n`;
  write(root, tree);
}

/** The name a crowded tree defines many times, and the package every one of its importer files imports. */
export const CROWDED_NAME = 'crowded';
export const CROWDED_PACKAGE = 'crowdpkg';

/**
 * Writes a crowded tree under `root` (the worst cases of find_symbol and
 * find_importers): `files` Python files under crowd/ each defining
 * CROWDED_NAME `defsPerFile` times, as many files importing CROWDED_PACKAGE
 * (half Python, half TypeScript, so one name is a merge of two lists), and a
 * chain of `barrels` TypeScript files each re-exporting the one before it,
 * down to chain/core.ts, each imported by 10 files.
 */
export function writeCrowdedTree(root: string, files: number, defsPerFile: number, barrels: number): void {
  const tree: Record<string, string> = {};
  const defs: string[] = [];
  for (let i = 0; i < defsPerFile; i++) defs.push(`def ${CROWDED_NAME}():\n    return ${i}\n`);
  const pad = (n: number) => String(n).padStart(5, '0');
  for (let f = 0; f < files; f++) {
    tree[`crowd/d${pad(f)}/mod.py`] = defs.join('');
    tree[f % 2 ? `users/u${pad(f)}.ts` : `users/u${pad(f)}.py`] = f % 2
      ? `import { x } from '${CROWDED_PACKAGE}';\nexport const y = x;\n`
      : `import ${CROWDED_PACKAGE}\n`;
  }
  tree['chain/core.ts'] = 'export const core = 1;\n';
  for (let b = 0, prev = './core'; b < barrels; prev = `./b${pad(b)}`, b++) {
    tree[`chain/b${pad(b)}.ts`] = `export * from '${prev}';\n`;
    for (let u = 0; u < 10; u++) tree[`chain/use${pad(b)}/u${u}.ts`] = `import { core } from '../b${pad(b)}';\nexport const v = core;\n`;
  }
  write(root, tree);
}

/** Opens one authenticated raw connection to a daemon. */
export function openConnection(url: string, token: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false, maxPayload: 1 << 30 });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** What the greedy client asks, again and again: by default a search for FLOOD_QUERY. */
export interface FloodCall { name: string; arguments: Record<string, unknown> }

/**
 * The greedy client: `perConnection` requests (`call`, by default a
 * search_code for FLOOD_QUERY) written at once on each of its connections
 * (pipelined, none waits for an answer). `answered` counts the answers as
 * they arrive; `done` resolves when all have come (an error answer rejects it).
 */
export class Flood {
  answered = 0;
  private firstAnswer!: () => void;
  /** Resolves with the first answer the flood gets back: by then the daemon has read the flood's requests. */
  readonly started = new Promise<void>((r) => { this.firstAnswer = r; });
  readonly done: Promise<void>;
  readonly total: number;

  constructor(private readonly conns: readonly WebSocket[], perConnection: number, call: FloodCall = { name: 'search_code', arguments: { query: FLOOD_QUERY } }) {
    this.total = conns.length * perConnection;
    this.done = Promise.all(conns.map((ws, c) => new Promise<void>((resolve, reject) => {
      let left = perConnection;
      ws.on('message', (data) => {
        const m = JSON.parse(String(data)) as { error?: unknown };
        if (m.error) { reject(new Error(`flood answer was an error: ${JSON.stringify(m.error)}`)); return; }
        this.answered++;
        this.firstAnswer();
        if (--left === 0) resolve();
      });
      ws.once('close', () => { if (left > 0) reject(new Error('flood connection closed before its answers came')); });
      for (let i = 0; i < perConnection; i++) {
        ws.send(JSON.stringify({
          jsonrpc: '2.0', id: c * perConnection + i + 1, method: 'tools/call',
          params: call,
        }));
      }
    }))).then(() => undefined);
  }

  close(): void {
    for (const ws of this.conns) ws.terminate();
  }
}

/** What a quiet client saw while a greedy one flooded the daemon (askDuringFlood). */
export interface FloodWitness {
  /** The quiet client's find_symbol answer (JSON-RPC). */
  answer: Record<string, any>;
  /** Flood answers already sent when the quiet client asked, and when its answer came. */
  atSend: number;
  atAnswer: number;
  /** Requests in the flood. */
  floodTotal: number;
  /** Every distinct `total` the flood's answers carried. */
  totals: number[];
}

/**
 * Opens `connections` + 1 connections to the daemon at `url`; floods it over
 * all but one with `perConnection` pipelined `call`s each; once the flood is
 * being answered, asks find_symbol for LONE_SYMBOL on the last one. Resolves
 * when the whole flood is answered; closes every connection.
 */
export async function askDuringFlood(url: string, token: string, connections: number, perConnection: number, call?: FloodCall): Promise<FloodWitness> {
  const conns: WebSocket[] = [];
  try {
    for (let i = 0; i < connections + 1; i++) conns.push(await openConnection(url, token));
    const other = conns.pop()!;
    const totals = new Set<number>();
    for (const ws of conns) ws.on('message', (data) => totals.add((JSON.parse(String(data)) as { result?: { total: number } }).result?.total ?? -1));
    const flood = new Flood(conns, perConnection, call);
    await flood.started;
    const atSend = flood.answered;
    const answer = await rawExchange(other, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'find_symbol', arguments: { name: LONE_SYMBOL } } }));
    const atAnswer = flood.answered;
    conns.push(other);
    await flood.done;
    return { answer, atSend, atAnswer, floodTotal: flood.total, totals: [...totals] };
  } finally {
    for (const ws of conns) ws.terminate();
  }
}

/**
 * The quiet client was served fairly: its one definition was found (with
 * evidence that is the file's lines) after at most one flood answer per
 * flooding connection, long before the whole flood was answered.
 */
export function assertAnsweredBeforeBacklog(root: string, seen: FloodWitness, connections: number): void {
  const { answer, atSend, atAnswer, floodTotal } = seen;
  assert.is(answer.result?.total, 1, JSON.stringify(answer));
  assertEvidenceChecks(root, answer.result.evidence);
  assert.ok(atAnswer < floodTotal, `find_symbol waited for the whole flood (${atAnswer} of ${floodTotal} answered)`);
  assert.ok(atAnswer - atSend <= connections, `find_symbol waited for ${atAnswer - atSend} flood answers (at most one per flooding connection: ${connections})`);
}
