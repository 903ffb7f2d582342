// The daemon's token: a fresh random secret per start, written owner-only into
// the state folder (and into daemon.json, where clients read it). Connections
// present it as a bearer token (local/bearer.ts checks it).
import { newToken } from '../local/bearer.js';
import { files, writeFileAtomic } from '../local/state.js';

/** A fresh token per daemon start, so a token that leaked from an earlier run is worthless. */
export async function createToken(stateDir: string): Promise<string> {
  const token = newToken();
  await writeFileAtomic(files(stateDir).token, `${token}\n`);
  return token;
}
