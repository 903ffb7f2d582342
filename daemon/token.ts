// The daemon's token: a fresh random secret per start, written owner-only into
// the state folder (and into daemon.json, where clients read it), and
// compared in constant time with what each connection presents.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { files, writeFileAtomic } from '../local/state.js';

/** A fresh token per daemon start, so a token that leaked from an earlier run is worthless. */
export async function createToken(stateDir: string): Promise<string> {
  const token = randomBytes(32).toString('hex');
  await writeFileAtomic(files(stateDir).token, `${token}\n`);
  return token;
}

/** Constant-time comparison of a presented token with the daemon's. */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  // timingSafeEqual needs equal lengths; compare against itself to spend the same time, then fail.
  if (a.length !== b.length) { timingSafeEqual(b, b); return false; }
  return timingSafeEqual(a, b);
}
