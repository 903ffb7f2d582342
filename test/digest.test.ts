// local/digest.ts's SHA-256 and SHA-1 give node:crypto's digests of the same
// strings (UTF-8, as update(string) takes them): at every padding boundary,
// over many blocks, for characters of every UTF-8 length and unpaired
// surrogates; and local/random-bytes.ts gives as many bytes as asked for.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { sha1, sha256 } from '../local/digest.js';
import { randomBytes } from '../local/random-bytes.js';

const node = (algorithm: string, s: string): string => createHash(algorithm).update(s).digest('hex');

/** A string of `n` characters drawn from ASCII, 2-, 3- and 4-byte UTF-8 and unpaired surrogates, from a seeded generator. */
function mixed(n: number, seed: number): string {
  const pool = ['a', 'Z', '0', ' ', '\n', '\0', 'é', 'ß', 'Ω', '€', '中', '\u2028', '😀', '\u{10FFFF}', '\ud800', '\udfff'];
  let x = seed;
  let s = '';
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    s += pool[x % pool.length];
  }
  return s;
}

test('the known answers (FIPS 180-4 examples, and RFC 6455\'s accept key)', () => {
  assert.is(sha256('abc').toString('hex'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.is(sha1('abc').toString('hex'), 'a9993e364706816aba3e25717850c26c9cd0d89d');
  assert.is(sha256('').toString('hex'), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.is(sha1('dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11').toString('base64'), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
});

test('node:crypto\'s digest of every length 0-300 in ASCII, and of 2,000 mixed strings up to 5,000 characters', () => {
  for (let n = 0; n <= 300; n++) {
    const s = 'x'.repeat(n);
    assert.is(sha256(s).toString('hex'), node('sha256', s), `sha256 of ${n} bytes`);
    assert.is(sha1(s).toString('hex'), node('sha1', s), `sha1 of ${n} bytes`);
  }
  for (let i = 0; i < 2000; i++) {
    const s = mixed(i < 1900 ? i % 130 : 5000, i + 1);
    assert.is(sha256(s).toString('hex'), node('sha256', s), JSON.stringify(s));
    assert.is(sha1(s).toString('hex'), node('sha1', s), JSON.stringify(s));
  }
});

test('randomBytes gives the bytes asked for, different each time', () => {
  for (const n of [0, 1, 4, 16, 4096]) assert.is(randomBytes(n).length, n);
  const seen = new Set(Array.from({ length: 20 }, () => randomBytes(16).toString('hex')));
  assert.is(seen.size, 20);
});

test.run();
