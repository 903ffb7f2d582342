// What `evidex mcp --http` keeps in the root's state folder between starts
// (mcp-http.json, owner-only): its bearer token and its port. A host is
// configured once with the URL and the token; both stay the same when the
// server is started again (after a reboot, an upgrade), so the host's
// configuration stays valid. The token changes only when asked
// (--rotate-token, which keeps the port, even when the old token was refused),
// and the port only when another is named (--port).
//
// The daemon's own token is made fresh per start instead: only local programs
// that read daemon.json use it, and they read it again each time.
import { lstat, readFile } from 'node:fs/promises';
import { isToken, newToken } from '../../local/bearer.js';
import { ensureStateDir, files, writeFileAtomic } from '../../local/state.js';

export interface HttpState {
  token: string;
  /** The port last listened on; null before the first start. */
  port: number | null;
}

const isPort = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0 && (v as number) < 65536;

/**
 * The saved state, or null when there is none. A file that is not the user's
 * alone (a token others could read may have leaked) or not what this module
 * writes is refused with one line, and nothing is changed.
 */
export async function readHttpState(stateDir: string): Promise<HttpState | null> {
  const read = await readSaved(stateDir);
  if (read === null) return null;
  if (read.refusal !== null) throw new Error(read.refusal);
  const { path, saved: v } = read;
  if (!isToken(v.token)) throw new Error(`${path} holds no token evidex made; start with --rotate-token to make a new one`);
  return { token: v.token, port: isPort(v.port) ? v.port : null };
}

/**
 * The saved file as it is, with why its token may not be used (null: it may);
 * null when there is none. Only a regular file of the user's own is read.
 */
async function readSaved(stateDir: string): Promise<{ path: string; saved: { token?: unknown; port?: unknown }; refusal: string | null } | null> {
  const path = files(stateDir).mcpHttp;
  let st;
  try {
    st = await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (!st.isFile()) throw new Error(`${path} is not a regular file; remove it (a new token is made at the next start)`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`${path} is not yours (owner uid ${st.uid}); remove it, or start with --rotate-token`);
  let saved: { token?: unknown; port?: unknown };
  try {
    saved = (JSON.parse(await readFile(path, 'utf8')) as typeof saved | null) ?? {};
  } catch {
    saved = {};
  }
  const refusal = (st.mode & 0o077) !== 0
    ? `${path} can be read by others (mode ${(st.mode & 0o777).toString(8)}), so its token may have leaked; start with --rotate-token to make a new one`
    : null;
  return { path, saved: typeof saved === 'object' ? saved : {}, refusal };
}

/** Writes the state owner-only and atomically (the state folder is made owner-only when missing). */
export async function writeHttpState(stateDir: string, s: HttpState): Promise<void> {
  await ensureStateDir(stateDir);
  await writeFileAtomic(files(stateDir).mcpHttp, `${JSON.stringify(s)}\n`);
}

/**
 * The token to serve with: the saved one, or a new one when there is none or
 * `rotate` asks for it (a new one is saved at once, so it is never lost).
 */
export async function serverToken(stateDir: string, rotate: boolean): Promise<{ state: HttpState; made: boolean }> {
  if (!rotate) {
    const saved = await readHttpState(stateDir);
    if (saved) return { state: saved, made: false };
  }
  // The port stays whatever was wrong with the old token (others could read it, say): it is no secret, and the host's URL names it.
  const old = rotate ? await readSaved(stateDir).catch(() => null) : null;
  const state = { token: newToken(), port: isPort(old?.saved.port) ? old.saved.port : null };
  await writeHttpState(stateDir, state);
  return { state, made: true };
}
