// find_symbol's near misses on the machine's standard library: 200 names a
// model might guess — a definition's qualified name in another case, with a
// character dropped, or a method asked on a subclass that inherits it — and
// for each, the definition meant (found by Python's own `ast` and, for
// inherited methods, by Python's method resolution order: test/oracle/
// inherited.py) must be among the suggestions, the same ones in the same
// order on every run, warm or cold.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import type { Suggestion } from '../indexer/query/schemas.js';
import { runPyOracle, stdlibRoot } from './helpers/corpus.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { mulberry32 } from './helpers/random.js';
import { lacks, testUnless } from './helpers/skip.js';

const tmp = tempDir('suggest-stdlib');
const inheritedScript = fileURLToPath(new URL('../../test/oracle/inherited.py', import.meta.url));
/** Pure-Python modules whose classes inherit from other stdlib classes; importing them has no side effect. */
const MODULES = [
  'http.server', 'socketserver', 'xml.dom.minidom', 'argparse', 'logging.handlers', 'email.mime.text',
  'xmlrpc.server', 'wsgiref.simple_server', 'http.cookiejar', 'configparser', 'html.parser', 'zipfile',
  'concurrent.futures.thread', 'asyncio.queues', 'urllib.request', 'smtplib', 'ftplib', 'poplib', 'imaplib',
];
const PER_KIND = { case: 70, dropped: 70, inherited: 60 };

interface Case { kind: keyof typeof PER_KIND; asked: string; path: string; line: number }

function swapCase(s: string): string {
  return [...s].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
}

async function suggestionsOf(idx: EvidexIndex, name: string): Promise<{ total: number; suggestions: Suggestion[] }> {
  const r = await idx.runTool('find_symbol', { name });
  return { total: r.total, suggestions: r.suggestions ?? [] };
}

/**
 * Whether a suggestion stands for the definition meant: it is the one the
 * suggestion shows, or one of the several its name finds (`count`).
 */
async function reaches(idx: EvidexIndex, suggestions: Suggestion[], c: Case): Promise<boolean> {
  for (const s of suggestions) {
    if (s.path === c.path && s.line === c.line) return true;
    if (s.count === undefined) continue;
    const r = await idx.runTool('find_symbol', { name: s.name, path_prefix: c.path, limit: 200 });
    if (r.evidence.some((e) => e.path === c.path && e.start_line === c.line)) return true;
  }
  return false;
}

testUnless(lacks.python3())('find_symbol suggestions on the stdlib: the definition meant is among them for names mutated by case, a dropped character and a wrong (sub)class; same order every run, warm and cold', async () => {
  const root = stdlibRoot();
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'state'), extraIgnore: ['site-packages/', '__pycache__/'] });
  await idx.refresh();
  await idx.warm();
  const rand = mulberry32(26);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

  // Definitions to mutate, from Python's ast over a seeded sample of files.
  const files = idx.store.ordered().filter((f) => f.py && f.path.endsWith('.py')).map((f) => f.path);
  const sample = [...new Set(Array.from({ length: 120 }, () => pick(files)))].sort();
  const defs = runPyOracle(root, sample).flatMap((f) => (f.ok ? f.defs.filter((d) => d.kind !== 'variable' && d.name.length >= 5).map((d) => ({ ...d, path: f.path })) : []));
  assert.ok(defs.length > 500, `${defs.length} definitions to mutate`);

  const cases: Case[] = [];
  /** A mutation that names some definition itself is no near miss: drawn again. */
  const add = async (c: Case): Promise<void> => { if ((await suggestionsOf(idx, c.asked)).total === 0) cases.push(c); };
  for (let tries = 0; cases.filter((c) => c.kind === 'case').length < PER_KIND.case && tries < 1000; tries++) {
    const d = pick(defs);
    await add({ kind: 'case', asked: swapCase(d.qualname), path: d.path, line: d.start });
  }
  for (let tries = 0; cases.filter((c) => c.kind === 'dropped').length < PER_KIND.dropped && tries < 1000; tries++) {
    const d = pick(defs);
    const at = d.qualname.length - d.name.length + Math.floor(rand() * d.name.length);
    await add({ kind: 'dropped', asked: d.qualname.slice(0, at) + d.qualname.slice(at + 1), path: d.path, line: d.start });
  }
  const inherited = execFileSync('python3', [inheritedScript, root, ...MODULES], { encoding: 'utf8', maxBuffer: 1 << 28 })
    .trim().split('\n').map((l) => JSON.parse(l) as { asked: string; path: string; line: number });
  assert.ok(inherited.length > 200, `${inherited.length} inherited methods`);
  for (let tries = 0; cases.filter((c) => c.kind === 'inherited').length < PER_KIND.inherited && tries < 1000; tries++) {
    const m = pick(inherited);
    if (!cases.some((c) => c.asked === m.asked)) await add({ kind: 'inherited', ...m });
  }
  assert.is(cases.length, 200, 'cases drawn');

  const first = new Map<string, Suggestion[]>();
  const missed: string[] = [];
  const hits = { case: 0, dropped: 0, inherited: 0 };
  for (const c of cases) {
    const { suggestions } = await suggestionsOf(idx, c.asked);
    first.set(c.asked, suggestions);
    if (await reaches(idx, suggestions, c)) hits[c.kind]++;
    else missed.push(`${c.kind} ${c.asked} -> ${c.path}:${c.line}; got ${suggestions.map((s) => `${s.name}@${s.path}:${s.line}`).join(', ') || 'none'}`);
  }
  const rate = (k: keyof typeof PER_KIND): string => `${k} ${hits[k]}/${PER_KIND[k]}`;
  console.log(`  suggestions hit rate: ${rate('case')}, ${rate('dropped')}, ${rate('inherited')}; all ${hits.case + hits.dropped + hits.inherited}/200`);
  for (const m of missed) console.log(`  missed: ${m}`);

  // The same suggestions, in the same order, asked again and answered from the LMDB rows.
  for (const c of cases) assert.equal((await suggestionsOf(idx, c.asked)).suggestions, first.get(c.asked), `again: ${c.asked}`);
  idx.store.symbolsReady = false;
  try {
    for (const c of cases.filter((_, i) => i % 4 === 0)) assert.equal((await suggestionsOf(idx, c.asked)).suggestions, first.get(c.asked), `cold: ${c.asked}`);
  } finally {
    idx.store.symbolsReady = true;
  }
  assert.is(missed.length, 0, `${missed.length} of 200 missed`);
  await idx.close();
});

test.after(cleanupTemp);
test.run();
