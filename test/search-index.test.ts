// The in-memory search structures against brute force, through a random churn
// of files being added, rewritten (growing past their slots, shrinking),
// deleted and re-added, enough to force growth and compaction:
// - BlockSignatures.match must return exactly the blocks whose own trigram rows
//   include every query row (the signature is a bloom filter, so "exactly" is
//   checkable: the rows of a block are recomputed from its text);
// - TrigramLineCounts.count must equal the number of lines holding the trigram,
//   for ASCII and non-ASCII trigrams alike.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BlockSignatures, rowOf } from '../indexer/store/block-signatures.js';
import { TrigramLineCounts } from '../indexer/store/line-counts.js';
import { makeEvidence, makeEvidenceLazy } from '../indexer/evidence.js';
import { CapitalReader, encodeCase } from '../indexer/store/case-data.js';
import { ExactFinder, SearchText } from '../indexer/store/search-text.js';
import { bucketOf, queryBuckets } from '../indexer/store/trigrams.js';
import { mulberry32 } from './helpers/random.js';

const rnd = mulberry32(20261201);
const ALPHABET = 'abcdefgh ijk_.(),=ΣσςéÉ😀\t';
const pickChar = () => ALPHABET[Math.floor(rnd() * ALPHABET.length)];

/** A file's blocks as strings (SearchText keeps them as ranges of its pieces). */
const blocksOf = (st: SearchText): string[] => Array.from({ length: st.blockCount }, (_, b) => st.block(b));
/** A block source over plain strings. */
const sourceOf = (blocks: string[]) => ({ blockCount: blocks.length, block: (b: number) => blocks[b] });
function randomLines(n: number): string[] {
  return Array.from({ length: n }, () => {
    const len = Math.floor(rnd() * 70);
    let s = '';
    for (let i = 0; i < len; i++) s += pickChar();
    // Some lines repeat a trigram ("abcabc"): a line must still count once.
    return rnd() < 0.2 ? `${s}abc h iσσςabc${s}h i` : s;
  });
}

/**
 * The 0-based lines of st holding q in original case, by an ExactFinder pointed at every block in turn:
 * each block sliced from its piece, or (byRun) cut from the one slice of a random run of blocks
 * holding it, as search_code does (runs of 1 to 8 blocks, ending where a piece does).
 */
function linesFoundExactly(st: SearchText, q: string, byRun = false): number[] {
  const got: number[] = [];
  const finder = new ExactFinder(q);
  let run = '', first = 0, end = 0;
  for (let b = 0; b < st.blockCount; b++) {
    if (byRun && b >= end) {
      first = b;
      end = st.runEnd(b, Math.min(st.blockCount, b + 1 + Math.floor(rnd() * 8)));
      run = st.blockRange(first, end);
    }
    const hay = byRun ? finder.at(st, b, run, first) : finder.at(st, b);
    let lineNo = st.firstLineOf(b), at = 0;
    for (let pos = finder.find(hay, 0); pos >= 0;) {
      for (let nl = hay.indexOf('\n', at); nl >= 0 && nl < pos; nl = hay.indexOf('\n', nl + 1)) { lineNo++; at = nl + 1; }
      got.push(lineNo);
      const nl = hay.indexOf('\n', pos + q.length);
      if (nl < 0) break;
      pos = finder.find(hay, nl + 1);
    }
  }
  return got;
}

/** The rows a block's own trigrams set (what its signature must hold). */
function rowsOfBlock(text: string): Set<number> {
  const rows = new Set<number>();
  for (const line of text.split('\n')) {
    for (let i = 2; i < line.length; i++) rows.add(rowOf(bucketOf(line.charCodeAt(i - 2), line.charCodeAt(i - 1), line.charCodeAt(i))));
  }
  return rows;
}

test('block signatures and line counts equal brute force through add, rewrite, delete, compaction and fit', () => {
  const files = new Map<number, SearchText>();
  // Compaction at 64 free slots (not 16,384) so this small churn goes through several.
  const sigs = new BlockSignatures((fid) => files.get(fid)!, 64);
  // Far more room than the churn uses, as warm-up reserves, so fit() below has some to give back.
  sigs.reserve(1 << 16);
  const counts = new TrigramLineCounts();
  const put = (fid: number, st: SearchText) => {
    const old = files.get(fid);
    if (old) counts.apply(old, -1);
    files.set(fid, st);
    sigs.set(fid, st);
    counts.apply(st, 1);
  };
  const drop = (fid: number) => {
    const old = files.get(fid);
    if (!old) return;
    counts.apply(old, -1);
    files.delete(fid);
    sigs.delete(fid);
  };
  const queries = ['abc', 'ab', 'σς', 'é(', '😀', 'Σσ', 'h i', 'k_.', '), ', 'zzz'];

  const check = (step: number) => {
    for (const query of queries) {
      const buckets = queryBuckets(query, false);
      if (!buckets) continue;
      const rows = sigs.queryRows(buckets);
      const want: string[] = [];
      for (const [fid, st] of [...files].sort((a, b) => a[0] - b[0])) {
        blocksOf(st).forEach((text, b) => { if (rows.every((r) => rowsOfBlock(text).has(r))) want.push(`${fid}:${b}`); });
      }
      const m = sigs.match(rows);
      const got: string[] = [];
      for (let i = 0; i < m.n; i++) got.push(`${m.fid[i]}:${m.block[i]}`);
      // match() walks slots, so files come in slot order: compare as sets, and each file's blocks ascending.
      assert.equal([...got].sort(), [...want].sort(), `step ${step}: blocks for ${JSON.stringify(query)}`);
      for (const fid of files.keys()) {
        const mine = got.filter((k) => k.startsWith(`${fid}:`)).map((k) => Number(k.split(':')[1]));
        assert.equal(mine, [...mine].sort((a, b) => a - b), `step ${step}: blocks of file ${fid} ascending`);
        assert.equal([...sigs.matchFile(fid, rows)], mine, `step ${step}: matchFile(${fid}) for ${JSON.stringify(query)}`);
      }
    }
    // Three UTF-16 units each, lowercased as the blocks are; only all-ASCII ones are counted.
    for (const tri of ['abc', 'h i', ' (a', 'a\tb', 'zzz', 'k_.', '),(']) {
      let want = 0;
      for (const st of files.values()) for (const block of blocksOf(st)) for (const line of block.split('\n')) if (line.includes(tri)) want++;
      assert.is(counts.count(tri), want, `step ${step}: lines holding ${JSON.stringify(tri)}`);
    }
    for (const tri of ['σσς', 'éé(', '😀a']) assert.is(counts.count(tri), null, `${JSON.stringify(tri)} is not counted`);
  };

  let moves = 0;
  for (let step = 0; step < 400; step++) {
    const fid = 1 + Math.floor(rnd() * 60);
    const r = rnd();
    if (r < 0.15) drop(fid);
    else {
      // Sizes from one line to ~12 blocks, so a rewrite often needs more slots than it had.
      const st = SearchText.fromLines(randomLines(1 + Math.floor(rnd() * (r < 0.6 ? 8 : 60))));
      if (files.has(fid) && st.blockCount > files.get(fid)!.blockCount) moves++;
      put(fid, st);
    }
    // Giving back the room past the slots in use (as warm-up's end does) keeps every answer.
    if (step % 50 === 30) sigs.fit();
    if (step % 20 === 0 || step % 50 === 30) check(step);
  }
  check(400);
  assert.ok(moves > 20, `rewrites that outgrew their slots: ${moves}`);
  assert.ok(sigs.compactions > 0, `compactions during the churn: ${sigs.compactions}`);
  // Deleting almost everything leaves mostly free slots: the next add compacts.
  for (const fid of [...files.keys()].slice(1)) drop(fid);
  const before = sigs.compactions;
  for (let i = 0; i < 40; i++) put(1000 + i, SearchText.fromLines(randomLines(200)));
  assert.ok(sigs.compactions > before, 'adding after mass deletion compacts');
  check(401);
});

test('SearchText.textRange is the lines joined by "\\n", cut only past maxChars, for any span and any mix of text', () => {
  // ASCII blocks with capitals keep case data instead of a second string; "İ" lowercases
  // to two units, so its block keeps an original-case string of another length.
  const kinds = [
    () => randomLines(1)[0],
    () => Array.from({ length: Math.floor(rnd() * 90) }, () => 'aZ_( ).Qx'[Math.floor(rnd() * 9)]).join(''),
    () => `İstanbul ${randomLines(1)[0]} İİ`,
    () => '',
    () => 'Long'.repeat(50 + Math.floor(rnd() * 1500)), // past a block, sometimes past a snippet
  ];
  let checked = 0;
  for (let f = 0; f < 60; f++) {
    const lines = Array.from({ length: 1 + Math.floor(rnd() * 120) }, () => kinds[Math.floor(rnd() * (rnd() < 0.7 ? 2 : kinds.length))]());
    const st = SearchText.fromLines(lines);
    assert.is(st.lineCount, lines.length);
    for (let k = 0; k < 80; k++) {
      const start = 1 + Math.floor(rnd() * lines.length);
      const end = start + Math.floor(rnd() * Math.min(lines.length - start + 1, rnd() < 0.5 ? 3 : 200));
      const full = lines.slice(start - 1, end).join('\n');
      const max = [Infinity, 4000, Math.floor(rnd() * 300)][k % 3];
      const got = st.textRange(start, end, max);
      if (full.length <= max) assert.is(got, full, `lines ${start}-${end}`);
      else {
        // Past maxChars by exactly one: enough to tell there is more, no further read.
        assert.is(got.length, max + 1, `lines ${start}-${end} cut at ${got.length} for maxChars ${max}`);
        assert.is(got, full.slice(0, got.length), `lines ${start}-${end}: a prefix`);
      }
      checked++;
    }
  }
  assert.ok(checked === 4800);
  assert.throws(() => SearchText.fromLines(['a']).textRange(1, 2), /outside 1-1/);
});

test('evidence read through textRange equals makeEvidence at the edges: one-line files, a pair at the 4,000 cut, texts of exactly the cap', () => {
  const files: string[][] = [
    ['only line'],
    [''],
    ['x'.repeat(3999) + '😀' + 'tail'], // the pair straddles units 3999-4000: the cut drops its first half
    ['x'.repeat(3998) + '😀', 'next'], // the pair ends exactly at the cut
    ['İ'.repeat(10), 'y'.repeat(3989)], // 10 + 1 + 3989 = 4,000 exactly: not truncated
    ['İ'.repeat(10), 'Y'.repeat(3990)], // 4,001: truncated, and an ASCII block with case data (the bit-set form)
    [...Array.from({ length: 40 }, (_, i) => `Line ${i}`), ''], // a last line that is empty
  ];
  for (const lines of files) {
    const st = SearchText.fromLines(lines);
    for (let start = 1; start <= lines.length; start++) {
      for (let end = start; end <= lines.length; end++) {
        const want = makeEvidence('f', lines, start, end, 'source', 'f');
        const got = makeEvidenceLazy('f', start, end, 'source', 'f', (a, b, max) => st.textRange(a, b, max));
        assert.equal(got, want, `lines ${start}-${end} of ${JSON.stringify(lines).slice(0, 60)}`);
      }
    }
  }
});

test('SearchText blocks are the lowercased lines in order, whole lines each, across pieces of one- and two-byte text; ExactFinder equals a plain scan', () => {
  // Kinds of line: plain ASCII with capitals, Latin-1 (one byte a character), wide (past U+00FF: its
  // blocks sit in pieces of their own), one that lowercasing lengthens, a "\r" kept inside a line
  // (what a CRLF file's lines keep only at their end, where splitLines drops it), long lines.
  const kinds = [
    () => Array.from({ length: Math.floor(rnd() * 90) }, () => 'aZ_( ).Qx'[Math.floor(rnd() * 9)]).join(''),
    () => `café Ünïcode ${'Éé'.repeat(Math.floor(rnd() * 5))} z`,
    () => randomLines(1)[0],
    () => `İstanbul ${'K'.repeat(1 + Math.floor(rnd() * 3))}elvin`,
    () => 'a\rB\rc',
    () => 'Long'.repeat(50 + Math.floor(rnd() * 400)),
    () => '',
  ];
  const queries = ['a', 'Z_', 'x)', 'é', 'É', 'café', 'Ün', 'σς', 'Σ', '😀', 'İ', 'K', 'k', 'elvin', '\rB', 'gLo', 'LongLong', 'q', ' z'];
  let pieced = 0;
  for (let f = 0; f < 80; f++) {
    // Runs of one kind, so a file goes from one-byte to two-byte text and back.
    const lines: string[] = [];
    const nRuns = 1 + Math.floor(rnd() * 6);
    for (let r = 0; r < nRuns; r++) {
      const kind = kinds[Math.floor(rnd() * kinds.length)];
      for (let k = Math.floor(rnd() * 40); k >= 0; k--) lines.push(kind());
    }
    const st = SearchText.fromLines(lines);
    const blocks = blocksOf(st);
    assert.is(blocks.join('\n'), lines.map((l) => l.toLowerCase()).join('\n'), `file ${f}: the blocks are every line lowercased, in order`);
    let line = 0;
    for (let b = 0; b < st.blockCount; b++) {
      assert.is(st.firstLineOf(b), line, `file ${f}: block ${b} starts at a line`);
      line += blocks[b].split('\n').length;
    }
    assert.is(line, lines.length);
    // Runs of blocks within a piece: one slice equal to the blocks joined, ending where a piece does.
    for (let b = 0; b < st.blockCount;) {
      const max = Math.min(st.blockCount, b + 1 + Math.floor(rnd() * 8));
      const e = st.runEnd(b, max);
      assert.ok(e > b && e <= max, `file ${f}: run from ${b} ends at ${e} (max ${max})`);
      assert.is(st.blockRange(b, e), blocks.slice(b, e).join('\n'), `file ${f}: blocks ${b}-${e - 1} as one slice`);
      if (e < max) assert.is(/[^\0-\xff]/.test(blocks[e - 1]) === /[^\0-\xff]/.test(blocks[e]), false, `file ${f}: a run cut short ends at a piece's end`);
      b = e;
    }
    if (blocks.some((t) => /[^\0-\xff]/.test(t)) && blocks.some((t) => !/[^\0-\xff]/.test(t))) pieced++;
    for (const q of queries) {
      // Which lines hold q exactly, by a plain scan against the finder pointed at every block in turn.
      const want = lines.flatMap((l, i) => (l.includes(q) ? [i] : []));
      assert.equal(linesFoundExactly(st, q), want, `file ${f}: lines holding ${JSON.stringify(q)}, case-sensitive`);
      assert.equal(linesFoundExactly(st, q, true), want, `file ${f}: lines holding ${JSON.stringify(q)}, case-sensitive, blocks cut from runs`);
    }
  }
  assert.ok(pieced > 10, `files mixing one- and two-byte blocks: ${pieced}`);
});

test('case data: the capitals of code-like and dense text, in either form, at any gap; textRange and ExactFinder through it equal a plain scan', () => {
  // Capitals a few in a hundred (the gap form), long runs of lowercase (gaps at and past one
  // byte's reach, 253/254/255 and multiples), runs of capitals, a capital first or last, and
  // blocks dense enough that the bit set is the shorter form.
  const lowerRun = () => 'x'.repeat([0, 1, 252, 253, 254, 255, 507, 508, 509, 1000][Math.floor(rnd() * 10)]);
  const kinds = [
    () => `    def get${'Value'.repeat(Math.floor(rnd() * 3))}(self, key=None):  # ${'lower '.repeat(Math.floor(rnd() * 30))}End`,
    () => `${lowerRun()}A${lowerRun()}BC${lowerRun()}`,
    () => 'Z' + lowerRun() + 'Q',
    () => Array.from({ length: Math.floor(rnd() * 120) }, () => 'aZ_( ).Qx'[Math.floor(rnd() * 9)]).join(''),
    () => 'MAX_VALUE = TYPE_CHECKING or DEFAULT',
    () => 'lowercase only, no capital',
  ];
  const capitals = new CapitalReader();
  let gapForm = 0, bitForm = 0;
  for (let t = 0; t < 300; t++) {
    const text = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => kinds[Math.floor(rnd() * kinds.length)]()).join('\n');
    const want = [...text].flatMap((ch, i) => (ch >= 'A' && ch <= 'Z' ? [i] : []));
    if (want.length === 0) continue;
    const words = Int32Array.from([7, ...encodeCase(text)]); // at an offset, as in a layout
    if ((words[1] & 255) === 0) bitForm++;
    else gapForm++;
    assert.ok(words.length - 1 <= 1 + ((text.length + 31) >>> 5), 'never longer than the bit set');
    const got: number[] = [];
    capitals.start(words, 1, text.length);
    assert.is(capitals.at, -1, 'before the first capital');
    for (capitals.advance(); capitals.at !== Infinity; capitals.advance()) got.push(capitals.at);
    assert.equal(got, want, `capitals of ${JSON.stringify(text.slice(0, 60))}`);
    // seek() lands on the first capital at or after a unit; capitalsAre, at ascending windows, answers as
    // the text does, for the window's own pattern and for that pattern with one unit flipped.
    const from = Math.floor(rnd() * text.length);
    capitals.start(words, 1, text.length);
    capitals.seek(from);
    assert.is(capitals.at, want.find((i) => i >= from) ?? Infinity, `seek(${from})`);
    capitals.start(words, 1, text.length);
    for (let pos = 0; pos < text.length; pos += 1 + Math.floor(rnd() * 40)) {
      const len = Math.min(text.length - pos, 1 + Math.floor(rnd() * 12));
      const pattern = Uint8Array.from(text.slice(pos, pos + len), (ch) => (ch >= 'A' && ch <= 'Z' ? 1 : 0));
      const flipped = Uint8Array.from(pattern);
      flipped[Math.floor(rnd() * len)] ^= 1;
      assert.ok(capitals.capitalsAre(pos, pattern, pattern.includes(1)), `units ${pos}-${pos + len - 1} as they are`);
      assert.not.ok(capitals.capitalsAre(pos, flipped, flipped.includes(1)), `units ${pos}-${pos + len - 1} with one flipped`);
    }
  }
  assert.ok(gapForm > 50 && bitForm > 20, `both forms seen: ${gapForm} gap lists, ${bitForm} bit sets`);
  const queries = ['A', 'BC', 'xA', 'xB', 'Cx', 'Value', 'getValue(', 'End', 'MAX_', 'TYPE_CHECKING', 'Z_', 'Qx', 'x', 'zQ', 'Z', 'lower'];
  for (let f = 0; f < 40; f++) {
    const lines = Array.from({ length: 1 + Math.floor(rnd() * 60) }, () => kinds[Math.floor(rnd() * kinds.length)]());
    const st = SearchText.fromLines(lines);
    for (let start = 1; start <= lines.length; start += 1 + Math.floor(rnd() * 5)) {
      const end = Math.min(lines.length, start + Math.floor(rnd() * 8));
      assert.is(st.textRange(start, end), lines.slice(start - 1, end).join('\n'), `file ${f}, lines ${start}-${end}`);
    }
    for (const q of queries) {
      const want = lines.flatMap((l, i) => (l.includes(q) ? [i] : []));
      assert.equal(linesFoundExactly(st, q), want, `file ${f}: lines holding ${JSON.stringify(q)}, case-sensitive`);
      assert.equal(linesFoundExactly(st, q, true), want, `file ${f}: lines holding ${JSON.stringify(q)}, case-sensitive, blocks cut from runs`);
    }
  }
});

test('compaction terminates even when spare room alone exceeds the threshold', () => {
  // Sources with no blocks leave only spare slots; a compaction cannot remove those, so it must not start again from inside itself.
  const sources = new Map<number, ReturnType<typeof sourceOf>>();
  const sigs = new BlockSignatures((fid) => sources.get(fid)!, 4);
  const put = (fid: number, blocks: string[]) => { sources.set(fid, sourceOf(blocks)); sigs.set(fid, sources.get(fid)!); };
  for (let fid = 1; fid <= 50; fid++) put(fid, []);
  for (let fid = 1; fid <= 50; fid += 2) { sigs.delete(fid); sources.delete(fid); }
  for (let fid = 100; fid <= 120; fid++) put(fid, ['abc']);
  assert.ok(sigs.compactions > 0, 'holes from deleted files were compacted');
  const m = sigs.match(sigs.queryRows(queryBuckets('abc', false)!));
  assert.is(m.n, 21, 'every file with "abc" is found after compaction');
});

test.run();
