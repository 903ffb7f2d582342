// distanceWithin (indexer/query/distance.ts) against the textbook optimal
// string alignment distance, the whole table with no cut: random strings over
// small alphabets (so equal letters, shared prefixes and suffixes and swapped
// neighbours are common), lengths 0–14, bounds 0–3, and pairs that differ by
// a few random edits, as names a model misspells do.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { distanceWithin } from '../local/distance.js';
import { nearestCommand } from '../client/cli.js';
import { mulberry32 } from './helpers/random.js';

/** The optimal string alignment distance, every cell of the table computed. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

const rand = mulberry32(20261203);
const pick = (n: number): number => Math.floor(rand() * n);
const word = (alphabet: string, len: number): string => Array.from({ length: len }, () => alphabet[pick(alphabet.length)]).join('');

/** `s` after `k` random edits: insert, delete, substitute or swap neighbours. */
function edited(s: string, k: number, alphabet: string): string {
  for (let e = 0; e < k; e++) {
    const i = pick(s.length + 1);
    const op = pick(4);
    if (op === 0 || s.length === 0) s = s.slice(0, i) + alphabet[pick(alphabet.length)] + s.slice(i);
    else if (op === 1) s = s.slice(0, Math.min(i, s.length - 1)) + s.slice(Math.min(i, s.length - 1) + 1);
    else if (op === 2) { const j = Math.min(i, s.length - 1); s = s.slice(0, j) + alphabet[pick(alphabet.length)] + s.slice(j + 1); }
    else if (s.length >= 2) { const j = Math.min(i, s.length - 2); s = s.slice(0, j) + s[j + 1] + s[j] + s.slice(j + 2); }
  }
  return s;
}

test('distanceWithin equals the whole-table distance, cut at max + 1, on 40,000 random pairs', () => {
  let checked = 0, within = 0;
  for (const alphabet of ['ab', 'abc', 'abcdefghij']) {
    for (let n = 0; n < 20_000 / 3; n++) {
      const a = word(alphabet, pick(15));
      const b = rand() < 0.5 ? word(alphabet, pick(15)) : edited(a, 1 + pick(4), alphabet);
      const max = pick(4);
      const want = Math.min(osa(a, b), max + 1);
      assert.is(distanceWithin(a, b, max), want, `${JSON.stringify(a)} ~ ${JSON.stringify(b)} within ${max}`);
      assert.is(distanceWithin(b, a, max), want, `${JSON.stringify(b)} ~ ${JSON.stringify(a)} within ${max}`);
      checked += 2;
      if (want <= max) within += 2;
    }
  }
  // Both sides of the cut are exercised, not only "too far".
  assert.ok(within > checked / 5 && within < checked, `${within} of ${checked} pairs within the bound`);
});

test('long paths that differ in a short stretch, and a longer one after a shorter', () => {
  const base = 'packages/zod/v4/locales/ota.cjs';
  for (const [b, max] of [['packages/zod/v4/locales/ta.cjs', 2], ['packages/zod/v4/locales/tao.cjs', 2], ['packages/zod/v4/locales/ota.js', 2],
    ['packages/zod/v3/locales/oat.cjs', 2], ['packages/zod/v4/locales/bg.cjs', 2], ['x', 1], ['packages/zod/v4/locales/ota.cjs', 0]] as const) {
    assert.is(distanceWithin(base, b, max), Math.min(osa(base, b), max + 1), b);
  }
  // The reused rows grow for a long pair, then serve a short one.
  for (let n = 0; n < 20; n++) {
    const long = word('abc', 300);
    const other = edited(long, pick(4), 'abc');
    assert.is(distanceWithin(long, other, 2), Math.min(osa(long, other), 3));
  }
  assert.is(distanceWithin('ab', 'ba', 1), 1);
});

/** The command names, in the order cli.ts lists them (its --help). */
const COMMANDS = ['index', 'daemon', 'call', 'search', 'symbol', 'read', 'importers', 'diff', 'ask', 'chat', 'eval', 'mcp', 'tools'];

/** The CLI's nearest command as it was chosen by its own whole table: the first nearest within 2 edits (1 up to four letters), else the one command the name starts. */
function nearestByTable(name: string): string | null {
  let best: string | null = null, bestD = Infinity;
  for (const c of COMMANDS) {
    const d = osa(name.toLowerCase(), c);
    if (d < bestD) { best = c; bestD = d; }
  }
  if (best !== null && bestD <= (name.length <= 4 ? 1 : 2)) return best;
  const prefixed = COMMANDS.filter((c) => name.length >= 2 && c.startsWith(name.toLowerCase()));
  return prefixed.length === 1 ? prefixed[0] : null;
}

test('the CLI\'s "did you mean" command, by distanceWithin, is the one a whole edit-distance table chooses, on every command misspelt 1-3 ways and random words', () => {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const names = new Set<string>(['serch', 'symbols', 'SEARCH', 'Idx', 'im', 'd', '', 'dif', 'tool', 'cal', 'evl']);
  for (const c of COMMANDS) for (let n = 0; n < 300; n++) names.add(edited(c, 1 + pick(3), letters));
  for (let n = 0; n < 2000; n++) names.add(word('acdehilmnoprstv', 1 + pick(9)));
  let offered = 0;
  for (const name of names) {
    const want = nearestByTable(name);
    assert.is(nearestCommand(name), want, JSON.stringify(name));
    if (want !== null) offered++;
  }
  // Both kinds were met: names offered a command and names offered none.
  assert.ok(offered > 1000 && offered < names.size, `${offered} of ${names.size}`);
});

test.run();
