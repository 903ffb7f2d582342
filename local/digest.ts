// SHA-256 and SHA-1 (FIPS 180-4) of a string's UTF-8 bytes, in plain
// JavaScript, for the two digests every CLI call makes: the state folder's
// name (state.ts) and the WebSocket handshake's accept key (ws-client.ts).
// Neither is a secret; what they spare a call is node:crypto, whose load and
// first digest cost ~5 ms of CPU on Node 26, more than the call's network
// (docs/performance/cli-start.md). test/digest checks both against
// node:crypto.

const K256 = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));
const rotl = (x: number, n: number): number => (x << n) | (x >>> (32 - n));

/** `s` as UTF-8 (as node:crypto's update(string) takes it), padded to whole 64-byte blocks with its bit length last, as both digests pad. */
function padded(s: string): DataView {
  const bytes = Buffer.from(s, 'utf8');
  const out = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  out.set(bytes);
  out[bytes.length] = 0x80;
  const view = new DataView(out.buffer);
  view.setUint32(out.length - 8, Math.floor(bytes.length / 2 ** 29));
  view.setUint32(out.length - 4, (bytes.length * 8) >>> 0);
  return view;
}

/** The state words, big-endian, as the digest's bytes. */
function bytesOf(h: Uint32Array): Buffer {
  const out = Buffer.alloc(h.length * 4);
  h.forEach((x, i) => out.writeUInt32BE(x, i * 4));
  return out;
}

/** SHA-256 of `s`'s UTF-8 bytes. */
export function sha256(s: string): Buffer {
  const m = padded(s);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  for (let at = 0; at < m.byteLength; at += 64) {
    for (let i = 0; i < 16; i++) w[i] = m.getUint32(at + 4 * i);
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15];
      const y = w[i - 2];
      w[i] = w[i - 16] + (rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)) + w[i - 7] + (rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10));
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i]) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
  }
  return bytesOf(h);
}

/** SHA-1 of `s`'s UTF-8 bytes (what RFC 6455's accept key is made of). */
export function sha1(s: string): Buffer {
  const m = padded(s);
  const h = new Uint32Array([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0]);
  const w = new Uint32Array(80);
  for (let at = 0; at < m.byteLength; at += 64) {
    for (let i = 0; i < 16; i++) w[i] = m.getUint32(at + 4 * i);
    for (let i = 16; i < 80; i++) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    let [a, b, c, d, e] = h;
    for (let i = 0; i < 80; i++) {
      const f = i < 20 ? (b & c) | (~b & d) : i < 40 || i >= 60 ? b ^ c ^ d : (b & c) | (b & d) | (c & d);
      const k = i < 20 ? 0x5a827999 : i < 40 ? 0x6ed9eba1 : i < 60 ? 0x8f1bbcdc : 0xca62c1d6;
      const t = (rotl(a, 5) + f + e + k + w[i]) | 0;
      e = d; d = c; c = rotl(b, 30); b = a; a = t;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
  }
  return bytesOf(h);
}
