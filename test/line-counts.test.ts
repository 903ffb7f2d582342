// The per-trigram line counts (indexer/store/line-counts.ts) beside a plain
// count: for real text (the standard library's first files, lowercased as the
// search text is) plus lines long enough to take the sorting path, every
// all-ASCII trigram's count must equal the number of lines holding it, after
// files are added and after some are taken away again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeText, splitLines } from '../indexer/text.js';
import type { BlockSource } from '../indexer/store/block-signatures.js';
import { TrigramLineCounts } from '../indexer/store/line-counts.js';
import { listPyFiles, stdlibRoot } from './helpers/corpus.js';
import { lacks, testUnless } from './helpers/skip.js';

/** A file as the counts take it: its lowercased lines in blocks of whole lines. */
function blocksOf(lines: readonly string[]): BlockSource {
  const blocks: string[] = [];
  for (let i = 0; i < lines.length; i += 7) blocks.push(lines.slice(i, i + 7).join('\n'));
  return { blockCount: blocks.length, block: (i) => blocks[i] };
}

/** Lines holding each all-ASCII trigram, by a plain scan of every line. */
function plainCounts(files: ReadonlyArray<readonly string[]>): Map<string, number> {
  const out = new Map<string, number>();
  for (const lines of files) {
    for (const line of lines) {
      const seen = new Set<string>();
      for (let i = 0; i + 3 <= line.length; i++) {
        const t = line.slice(i, i + 3);
        if (/^[\0-\x7f]{3}$/.test(t)) seen.add(t);
      }
      for (const t of seen) out.set(t, (out.get(t) ?? 0) + 1);
    }
  }
  return out;
}

function agree(counts: TrigramLineCounts, files: ReadonlyArray<readonly string[]>, also: readonly string[], step: string): void {
  const want = plainCounts(files);
  for (const [t, n] of want) assert.is(counts.count(t), n, `${step}: ${JSON.stringify(t)}`);
  // Trigrams no line holds (any more) count 0.
  for (const t of also) assert.is(counts.count(t), want.get(t) ?? 0, `${step}: absent ${JSON.stringify(t)}`);
}

testUnless(lacks.python3())('line counts equal a plain count over real files and long lines, as files come and go', () => {
  const root = stdlibRoot();
  const files: string[][] = listPyFiles(root).sort().slice(0, 60)
    .map((p) => splitLines(decodeText(readFileSync(join(root, p)))).map((l) => l.toLowerCase()));
  // Lines past the set's reach: one repeating trigrams, one of every ASCII triple around a few letters, one just at the edge.
  const letters = 'abcdefghijklmnopqrstuvwxyz0123456789_.( )';
  let every = '';
  for (const x of letters) for (const y of letters) every += `${x}${y}q`;
  files.push(['abc'.repeat(5000), every, 'x'.repeat(2047) + 'yz', 'x'.repeat(2048) + 'yz', 'ab', '', 'é€ab€abc']);
  // Counts past 16 bits (kept apart from the 16-bit table): "zzq" in 110,000 lines, "elf" in over 70,000;
  // the first file is among those taken away below (every third, from 0), which brings both back under.
  while (files.length % 3 !== 0) files.push(['']);
  files.push(Array.from({ length: 70_000 }, (_, i) => (i % 2 ? 'zzq elf' : 'elf zzq')));
  files.push(Array.from({ length: 40_000 }, () => 'zzq'));
  const absent = ['zqq', 'qqq', '\0\0\0', 'xyz'];
  const counts = new TrigramLineCounts();
  for (const f of files) counts.apply(blocksOf(f), 1);
  agree(counts, files, absent, 'all added');
  const kept = files.filter((_, i) => i % 3 !== 0);
  files.forEach((f, i) => { if (i % 3 === 0) counts.apply(blocksOf(f), -1); });
  const removed = plainCounts(files.filter((_, i) => i % 3 === 0));
  agree(counts, kept, [...absent, ...removed.keys()], 'a third taken away');
  assert.ok(plainCounts(files).get('zzq')! > 0xffff && plainCounts(kept).get('zzq')! < 0xffff, 'a count went past 16 bits and back');
});

test.run();
