// The search text in a memory map (indexer/store/text-map.ts, mapped-text.ts):
// the same tree indexed twice, once with its one-byte text kept in the heap
// and once moved to a text map (the threshold set to 1 byte), must answer
// every query alike: search_code (case-insensitive and not, pages, path
// prefixes, queries that visit every block), read_evidence over whole files
// and find_importers (import statements' text is cut from the search text),
// then again after files change (the overlay in the heap) and after enough
// change for a new generation (compaction). A map that cannot be written (no
// room on a real small tmpfs, a path that cannot be a folder) leaves the text
// in the heap with one line in the log and the answers unchanged.
import { test as uvu } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { COMPACT_MAX_WAIT_MS, COMPACT_QUIET_MS } from '../indexer/compaction-schedule.js';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { mapSlice, NoRoomError, TextMapGeneration, type MapPiece } from '../indexer/store/text-map.js';
import { SmallDisk, mountReason } from './helpers/full-disk.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { stdlibRoot } from './helpers/corpus.js';
import { mulberry32 } from './helpers/random.js';
import { firstReason, lacks, testUnless } from './helpers/skip.js';

const open: EvidexIndex[] = [];
uvu.after(async () => {
  // A test that failed left its indexes open: closed first, so the disk can be unmounted.
  for (const idx of open.splice(0)) await idx.close();
  SmallDisk.unmountAll();
  cleanupTemp();
});

/** Lines with characters past U+00FF (two-byte pieces, kept in the heap), non-ASCII one-byte text, "İ", final sigma, CRLF, long lines. */
const ODD = [
  '# -*- coding: utf-8 -*-\r',
  'NAME = "Café Ünïcode"  # latin1: one byte each\r',
  'GREEK = "ΣΑΣ ὈΔΥΣΣΕΎΣ"  # two bytes each',
  'TURKISH = "İstanbul KELVIN \u212a"',
  'EMOJI = "\u{1f600} smile"',
  `LONG = "${'AbC'.repeat(400)}"`,
  'def Upper_Case_Name(Self, X):',
  '    return Self.X + X  # ÀÉÎ',
].join('\n');

/** A small real tree: four stdlib packages and a file of odd lines, copied so they can be rewritten. */
function tree(): string {
  const root = join(tempDir('text-map'), 'tree');
  for (const pkg of ['json', 'email', 'http', 'urllib']) cpSync(join(stdlibRoot(), pkg), join(root, pkg), { recursive: true, filter: (p) => !p.includes('__pycache__') });
  writeFileSync(join(root, 'odd.py'), `${ODD}\n`);
  writeFileSync(join(root, 'odd_many.py'), `${Array.from({ length: 60 }, (_, i) => `${ODD}\nvalue_${i} = ${i}`).join('\n')}\n`);
  return root;
}

async function opened(root: string, stateDir: string, textMapMinBytes: number, log: string[] = []): Promise<EvidexIndex> {
  const idx = await openEvidexIndex(root, { stateDir, textMapMinBytes, log: (l) => log.push(l) });
  open.push(idx);
  await idx.refresh();
  await idx.warm();
  return idx;
}

/** Seeded queries over the tree's lines: substrings, mixed case, 1-2 characters, those that visit every block, misses; some case-sensitive, some paged, some under a prefix. */
function queries(idx: EvidexIndex, count: number, seed: number): Record<string, unknown>[] {
  const rnd = mulberry32(seed);
  const lines = idx.store.ordered().flatMap((f) => readFileSync(join(idx.root, f.path), 'utf8').split('\n').filter((l) => l.length >= 3));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const sample = (lo: number, hi: number): string => {
    const l = pick(lines);
    const len = Math.min(l.length, lo + Math.floor(rnd() * (hi - lo + 1)));
    const s = Math.floor(rnd() * (l.length - len + 1));
    return l.slice(s, s + len);
  };
  const out: Record<string, unknown>[] = ['e', 'self', 'x', 'İ', 'σ', 'ΣΑΣ', 'café', 'CAFÉ', 'abcabc', '\u{1f600}', 'Self.X'].map((query) => ({ query, limit: 200 }));
  for (let i = 0; i < count; i++) {
    const r = rnd();
    const query = r < 0.5 ? sample(3, 20) : r < 0.7 ? [...sample(3, 12)].map((c) => (rnd() < 0.5 ? c.toUpperCase() : c)).join('') : r < 0.9 ? sample(1, 2) : `zq${i}xj`;
    out.push({ query, limit: 1 + Math.floor(rnd() * 200) });
  }
  for (const q of out) {
    if (rnd() < 0.4) q.case_sensitive = rnd() < 0.6;
    if (rnd() < 0.2) q.path_prefix = pick(['json/', 'email/', 'http/', 'urllib/', 'odd']);
    if (rnd() < 0.3) q.offset = Math.floor(rnd() * rnd() * 3000);
  }
  return out;
}

/** A tool's answer less the index's generation (the two indexes count their commits differently). */
async function answer(idx: EvidexIndex, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const { generation: _g, ...rest } = await idx.runTool(tool as 'search_code', args as { query: string });
  return rest;
}

/** Both indexes answer every call alike: search_code, read_evidence of every file, find_importers of each package. */
async function sameAnswers(heap: EvidexIndex, mapped: EvidexIndex, seed: number): Promise<number> {
  let hits = 0;
  for (const q of queries(heap, 150, seed)) {
    const a = await answer(heap, 'search_code', q);
    assert.equal(await answer(mapped, 'search_code', q), a, `search_code ${JSON.stringify(q)}`);
    hits += (a as { total?: number }).total ?? 0;
  }
  for (const f of heap.store.ordered()) {
    const lines = heap.store.searchText(f.fid).lineCount;
    for (let start = 1; start <= lines; start += 400) {
      const args = { path: f.path, start_line: start, end_line: Math.min(lines, start + 399) };
      assert.equal(await answer(mapped, 'read_evidence', args), await answer(heap, 'read_evidence', args), `read_evidence ${JSON.stringify(args)}`);
    }
  }
  for (const module of ['json', 'email', 'http', 'urllib', 'email.utils', 'os', 're']) {
    const args = { module_name: module, limit: 200 };
    assert.equal(await answer(mapped, 'find_importers', args), await answer(heap, 'find_importers', args), `find_importers ${module}`);
  }
  return hits;
}

/** Files moved to the map: those with at least one piece there. */
function mappedFiles(idx: EvidexIndex): number {
  return idx.store.ordered().filter((f) => idx.store.searchText(f.fid).mapped).length;
}

/** Files a map can hold: those with one-byte text (an empty file has none). */
function mappableFiles(idx: EvidexIndex): number {
  return idx.store.ordered().filter((f) => {
    const st = idx.store.searchText(f.fid);
    for (let p = 0; p < st.pieceCount; p++) if ((st.oneBytePiece(p)?.length ?? 0) > 0) return true;
    return false;
  }).length;
}

testUnless(lacks.python3())('a map-backed and a heap-backed search text of the same files answer alike, through changes and a new generation', async () => {
  const root = tree();
  const heap = await opened(root, join(tempDir('text-map'), 'heap'), Infinity);
  const log: string[] = [];
  const mapState = join(tempDir('text-map'), 'map');
  const mapped = await opened(root, mapState, 1, log);
  assert.is(log.length, 1);
  assert.match(log[0], /^search text in a text map: [0-9.]+ MiB of \d+ files' text, generation 1, written in \d+ ms$/);
  assert.is(heap.store.textMapBytes, 0, 'a tree under the threshold keeps its text in the heap');
  assert.ok(mapped.store.textMapBytes > 0, 'the text was moved to a map');
  const files = mappableFiles(heap);
  assert.ok(files > 40 && files < heap.store.ordered().length, 'most files have one-byte text; empty ones have none');
  assert.is(mappedFiles(mapped), files, 'every file with one-byte text has it in the map');
  assert.is(mappedFiles(heap), 0);
  const mapDir = join(mapState, 'text-map');
  assert.is(readdirSync(mapDir).filter((n) => n.endsWith('.mdb')).length, 1);
  assert.ok(await sameAnswers(heap, mapped, 1) > 10_000, 'the queries match a lot');
  assert.is(mapped.status().textMap, `generation 1, ${(mapped.store.textMapBytes / 1048576).toFixed(1)} MiB: ${files} files' text in it, 0 in the heap (0.0 MiB); 0.0 MiB of it no longer read`);
  assert.match(heap.status().textMap ?? '', /^none: the search text \([0-9.]+ MiB\) is below the infinite threshold$/);

  // A few files change: their new versions are built in the heap (the overlay) beside the map.
  const few = mapped.store.ordered().filter((f) => f.path.startsWith('json/')).map((f) => f.path);
  for (const p of few) writeFileSync(join(root, p), `# changed ÀÉ Self.X\n${readFileSync(join(root, p), 'utf8')}`);
  for (const idx of [heap, mapped]) await idx.update(few);
  await mapped.warm();
  assert.is(mappedFiles(mapped), files - few.length, 'changed files stay in the heap while the overlay is small');
  assert.match(mapped.status().textMap ?? '', new RegExp(`^generation 1, [0-9.]+ MiB: ${files - few.length} files' text in it, ${few.length} in the heap \\(0\\.[0-9] MiB\\); 0\\.[0-9] MiB of it no longer read$`));
  assert.is(readdirSync(mapDir).filter((n) => n.endsWith('.mdb')).length, 1);
  await sameAnswers(heap, mapped, 2);

  // Most files change: the overlay passes its share, and a new generation replaces the old one.
  const many = mapped.store.ordered().filter((f) => !f.path.startsWith('json/')).map((f) => f.path).slice(0, 80);
  for (const p of many) writeFileSync(join(root, p), `${readFileSync(join(root, p), 'utf8')}\n# grown: café\n`);
  for (const idx of [heap, mapped]) await idx.update(many);
  await mapped.warm();
  assert.is(mappedFiles(mapped), mappableFiles(heap), 'the new generation holds every file again');
  const left = readdirSync(mapDir).filter((n) => n.endsWith('.mdb'));
  assert.is(left.length, 1, 'the old generation was removed');
  assert.ok(left[0].endsWith('-2.mdb'), `the second generation (${left[0]})`);
  assert.match(mapped.status().textMap ?? '', /^generation 2, [0-9.]+ MiB: \d+ files' text in it, 0 in the heap \(0\.0 MiB\); 0\.0 MiB of it no longer read$/);
  await sameAnswers(heap, mapped, 3);

  // Closed: a piece of the map is refused, not read from unmapped memory.
  const st = mapped.store.searchText(mapped.store.ordered()[0].fid);
  await mapped.close();
  assert.throws(() => st.block(0), /closed text map/);
  await heap.close();
});

testUnless(lacks.python3())('a text map that cannot be written leaves the text in the heap, with one line in the log', async () => {
  const root = tree();
  const heap = await opened(root, join(tempDir('text-map'), 'heap2'), Infinity);
  const stateDir = join(tempDir('text-map'), 'blocked');
  // The map's folder is a file: mkdir fails.
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(join(stateDir, 'text-map'), 'not a folder');
  const log: string[] = [];
  const idx = await opened(root, stateDir, 1, log);
  assert.is(idx.store.textMapBytes, 0);
  assert.is(mappedFiles(idx), 0);
  assert.is(log.length, 1, log.join('\n'));
  assert.match(log[0], /^search text kept in memory: /);
  await sameAnswers(heap, idx, 4);
  // Not retried at every pass while nothing changed.
  await idx.warm();
  assert.is(log.length, 1);
  await idx.close();
  await heap.close();
});

testUnless(firstReason(lacks.python3(), mountReason()))('a text map with no room on the disk (a real small tmpfs) leaves the text in the heap, with one line in the log', async () => {
  const root = tree();
  const heap = await opened(root, join(tempDir('text-map'), 'heap3'), Infinity);
  const disk = SmallDisk.mount(24 << 20); // room for the index, not for a map's segment of over 32 MiB
  const log: string[] = [];
  const idx = await opened(root, join(disk.dir, 'state'), 1, log);
  assert.is(idx.store.textMapBytes, 0);
  assert.is(mappedFiles(idx), 0);
  assert.is(log.length, 1, log.join('\n'));
  assert.match(log[0], /^search text kept in memory: no room for the text map/);
  assert.match(idx.status().textMap ?? '', /^none: it could not be written \(no room for the text map: /);
  assert.equal(readdirSync(join(disk.dir, 'state', 'text-map')), [], 'nothing left on the disk');
  await sameAnswers(heap, idx, 5);
  await idx.close();
  await heap.close();
});

/** A map folder made hostile before the first generation: how, and the reason its one line gives. */
const HOSTILE: Array<[string, RegExp, (dir: string, outside: string) => void]> = [
  ['a link to a folder elsewhere', /it is a symbolic link/, (dir, outside) => symlinkSync(outside, dir)],
  ['a fifo', /it is not a folder/, (dir) => { if (spawnSync('mkfifo', [dir]).status !== 0) throw new Error('mkfifo failed'); }],
  ['writable by others', /it is writable by group or others \(mode 0777\)/, (dir) => { mkdirSync(dir); chmodSync(dir, 0o777); writeFileSync(join(dir, '1-1.mdb'), 'theirs'); }],
  ['another user\'s', /it belongs to user 12345/, (dir) => { mkdirSync(dir, { mode: 0o700 }); chownSync(dir, 12345, 12345); writeFileSync(join(dir, '1-1.mdb'), 'theirs'); }],
];

testUnless(firstReason(lacks.python3(), process.getuid?.() === 0 ? null : 'not root: cannot give a folder to another user'))('a map folder that is a link, a fifo, writable by others or another user\'s is refused with one line: nothing in it or behind it is removed or written, answers unchanged', async () => {
  const root = tree();
  const heap = await opened(root, join(tempDir('text-map'), 'heap4'), Infinity);
  for (const [what, why, make] of HOSTILE) {
    const stateDir = join(tempDir('text-map'), 'hostile');
    mkdirSync(stateDir, { recursive: true });
    const outside = join(tempDir('text-map'), 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'precious.txt'), 'must survive');
    const dir = join(stateDir, 'text-map');
    make(dir, outside);
    // What the map folder's path holds: a link's target, a fifo, or the folder's names.
    const held = (): unknown => (lstatSync(dir).isSymbolicLink() ? readlinkSync(dir) : lstatSync(dir).isDirectory() ? readdirSync(dir) : 'not a folder');
    const before = held();
    const log: string[] = [];
    const idx = await opened(root, stateDir, 1, log);
    assert.is(log.length, 1, `${what}: ${log.join('\n')}`);
    assert.match(log[0], /^search text kept in memory: refusing the text map folder /, what);
    assert.match(log[0], why, what);
    assert.not.match(log[0], /\n/);
    assert.is(idx.status().textMap, `none: it could not be written (${log[0].slice('search text kept in memory: '.length)})`);
    assert.is(idx.store.textMapBytes, 0, what);
    assert.is(mappedFiles(idx), 0, what);
    assert.equal(readdirSync(outside), ['precious.txt'], `${what}: the folder behind it is untouched`);
    assert.equal(held(), before, `${what}: nothing removed or written in it`);
    await sameAnswers(heap, idx, 6);
    await idx.close();
  }
  await heap.close();
});

testUnless(lacks.python3())('a compaction waits until no update has landed for a while and none is queued, then one generation is written for the whole burst', async () => {
  const root = tree();
  const log: string[] = [];
  let now = 0;
  // The index's timer: each wait it asks for is held until the test lets it go.
  const waits: Array<() => void> = [];
  let waitAsked: (() => void) | null = null;
  const delay = () => new Promise<void>((resolve) => { waits.push(resolve); waitAsked?.(); });
  const nextWait = () => new Promise<() => void>((resolve) => {
    const take = () => { waitAsked = null; resolve(waits.shift()!); };
    if (waits.length) take(); else waitAsked = take;
  });
  let lineSeen: (() => void) | null = null;
  const written = (gen: number) => new Promise<void>((resolve) => {
    const seen = () => log.some((l) => l.includes(`, generation ${gen}, written`));
    if (seen()) resolve(); else lineSeen = () => { if (seen()) resolve(); };
  });
  const stateDir = join(tempDir('text-map'), 'quiet');
  const compacted: number[] = [];
  const idx = await openEvidexIndex(root, {
    stateDir, textMapMinBytes: 1, compactClock: { now: () => now, delay }, onTextMapCompacted: (files) => compacted.push(files),
    log: (l) => { log.push(l); lineSeen?.(); },
  });
  open.push(idx);
  await idx.refresh();
  await idx.warm();
  assert.match(idx.status().textMap ?? '', /^generation 1, /);
  assert.equal(compacted, [], 'the first generation is no compaction');
  const paths = idx.store.ordered().map((f) => f.path).filter((p) => p.endsWith('.py'));
  const change = async (some: string[], mark: string) => {
    for (const p of some) writeFileSync(join(root, p), `${readFileSync(join(root, p), 'utf8')}\n# ${mark}\n`);
    await idx.update(some);
  };

  // The first batch of a mass change makes a compaction due: it waits for the quiet instead of being written.
  await change(paths.slice(0, paths.length >> 1), 'first batch');
  const first = await Promise.race([nextWait(), written(2).then(() => null)]);
  assert.ok(first !== null, 'no generation is written right after a batch');
  assert.ok(idx.store.textMapDue, 'a compaction is due');
  assert.match(idx.status().textMap ?? '', /^generation 1, /);

  // The next batch lands before the quiet spell is over: still no generation, and the wait starts again.
  now += COMPACT_QUIET_MS / 2;
  await change(paths.slice(paths.length >> 1), 'second batch');
  first!();
  const second = await nextWait();
  assert.match(idx.status().textMap ?? '', /^generation 1, /);
  assert.is(log.filter((l) => l.startsWith('search text in a text map')).length, 1);

  // Quiet for long enough: one generation holds the whole burst.
  now += COMPACT_QUIET_MS;
  second();
  await written(2);
  assert.is(log.filter((l) => l.startsWith('search text in a text map')).length, 2, 'one generation for both batches');
  // Its owner is told (the daemon collects the garbage it left, as after a large write).
  assert.equal(compacted, [mappedFiles(idx)]);
  assert.not.ok(idx.store.textMapDue);
  assert.match(idx.status().textMap ?? '', /^generation 2, [0-9.]+ MiB: \d+ files' text in it, 0 in the heap \(0\.0 MiB\); 0\.0 MiB of it no longer read$/);
  assert.is(readdirSync(join(stateDir, 'text-map')).filter((n) => n.endsWith('.mdb')).length, 1);

  // A tree that never rests: a due compaction is written anyway once it has waited COMPACT_MAX_WAIT_MS.
  await change(paths.slice(0, paths.length >> 1), 'third batch');
  let wait = await nextWait();
  const step = COMPACT_QUIET_MS - 100;
  const steps = Math.ceil(COMPACT_MAX_WAIT_MS / step);
  for (let k = 1; k <= steps; k++) {
    now += step;
    await change([paths[k % paths.length]], `small change ${k}`);
    wait();
    const next = await Promise.race([nextWait(), written(3).then(() => null)]);
    if (k < steps) {
      assert.ok(next !== null, `still waiting after ${k * step} ms of changes`);
      wait = next!;
    } else assert.is(next, null, 'written once it has waited its most');
  }
  assert.equal(compacted.length, 2);
});

testUnless(lacks.python3())('what an earlier daemon left in the map folder (a truncated generation, garbage, a link to a file elsewhere) is removed, by a daemon that maps and by one that does not; the file behind the link stays', async () => {
  const root = tree();
  const heap = await opened(root, join(tempDir('text-map'), 'heap7'), Infinity);
  for (const threshold of [1, Infinity]) {
    const stateDir = join(tempDir('text-map'), 'left');
    const dir = join(stateDir, 'text-map');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const outside = join(tempDir('text-map'), 'outside-file');
    writeFileSync(outside, 'must survive');
    writeFileSync(join(dir, '1-1.mdb'), Buffer.alloc(8192)); // a generation cut short by kill -9
    writeFileSync(join(dir, '1-1.mdb-lock'), 'garbage');
    symlinkSync(outside, join(dir, `${process.pid}-1.mdb`));
    const log: string[] = [];
    const idx = await opened(root, stateDir, threshold, log);
    assert.is(readFileSync(outside, 'utf8'), 'must survive');
    const left = readdirSync(dir);
    if (threshold === 1) {
      assert.is(log.length, 1, log.join('\n'));
      assert.match(log[0], /^search text in a text map: /);
      assert.equal(left, [`${process.pid}-1.mdb`, `${process.pid}-1.mdb-lock`]);
      assert.ok(lstatSync(join(dir, left[0])).isFile(), 'written as a file of its own, not through the link');
    } else {
      assert.equal(log, []);
      assert.equal(left, [], 'a daemon that maps nothing removes them too');
    }
    await sameAnswers(heap, idx, 9);
    await idx.close();
  }
  await heap.close();
});

testUnless(lacks.python3())('the state folder removed under a running index: the map it has open still reads, a new generation is not written and the folder is not made again', async () => {
  const root = tree();
  const heap = await opened(root, join(tempDir('text-map'), 'heap5'), Infinity);
  const stateDir = join(tempDir('text-map'), 'removed');
  const log: string[] = [];
  const idx = await opened(root, stateDir, 1, log);
  assert.ok(idx.store.textMapBytes > 0);
  rmSync(stateDir, { recursive: true });
  // Enough change for a compaction: it is tried, and fails with one line.
  const many = idx.store.ordered().map((f) => f.path).filter((p) => p.endsWith('.py')).slice(0, 80);
  for (const p of many) writeFileSync(join(root, p), `${readFileSync(join(root, p), 'utf8')}\n# moved on: Café\n`);
  for (const x of [heap, idx]) await x.update(many);
  await idx.warm();
  assert.is(log.length, 2, log.join('\n'));
  assert.is(log[1], `search text kept in memory: the state folder ${stateDir} is gone`);
  assert.not.ok(existsSync(stateDir), 'the state folder is not made again');
  assert.match(idx.status().textMap ?? '', /^generation 1, /, 'the first generation, unlinked, is still what is read');
  await sameAnswers(heap, idx, 7);
  await idx.close();
  await heap.close();
});

testUnless(firstReason(lacks.python3(), mountReason()))('a text map refused for want of room is written once there is room and the text has changed by a share', async () => {
  const root = tree();
  const heap = await opened(root, join(tempDir('text-map'), 'heap6'), Infinity);
  const disk = SmallDisk.mount(96 << 20);
  disk.fill(16 << 20); // room for the index, not for a map's segment of over 32 MiB
  const log: string[] = [];
  const idx = await opened(root, join(disk.dir, 'state'), 1, log);
  assert.is(log.length, 1, log.join('\n'));
  assert.match(log[0], /^search text kept in memory: no room for the text map/);
  disk.release();
  const many = idx.store.ordered().map((f) => f.path).filter((p) => p.endsWith('.py')).slice(0, 80);
  for (const p of many) writeFileSync(join(root, p), `${readFileSync(join(root, p), 'utf8')}\n# room again: Café\n`);
  for (const x of [heap, idx]) await x.update(many);
  await idx.warm();
  assert.is(log.length, 2, log.join('\n'));
  assert.match(log[1], /^search text in a text map: .* generation 2, /);
  assert.is(mappedFiles(idx), mappableFiles(heap));
  assert.equal(readdirSync(join(disk.dir, 'state', 'text-map')).filter((n) => n.endsWith('.mdb')).length, 1);
  await sameAnswers(heap, idx, 8);
  await idx.close();
  await heap.close();
});

testUnless(mountReason())('a disk that fills while a generation is written (statfs said there was room): NoRoomError, nothing left on it, and the next write works once there is room', async () => {
  const disk = SmallDisk.mount(48 << 20); // room for one segment of 32 MiB
  const dir = join(disk.dir, 'text-map');
  const text = 'def café(self): pass\n'.repeat(1000);
  const err = await TextMapGeneration.write(dir, 1, [text], () => assert.unreachable('nothing placed'), () => disk.fill()).then(() => null, (e: unknown) => e);
  assert.instance(err, NoRoomError);
  assert.match((err as Error).message, /^no room for the text map: the disk filled while it was written \(36\.1 MiB needed, [0-9.]+ MiB free in /);
  assert.not.match((err as Error).message, /\n/);
  assert.equal(readdirSync(dir), [], 'the half-written generation is removed');
  disk.release();
  let piece: MapPiece | null = null;
  const gen = await TextMapGeneration.write(dir, 2, [text], (_i, p) => { piece = p; });
  assert.is(mapSlice(piece!, 0, text.length), text);
  await gen.close();
  assert.equal(readdirSync(dir), []);
});

uvu.run();
