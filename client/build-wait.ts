// While a command's first call waits for the daemon's first build (a fresh
// repository: the daemon answers tool calls once its index is whole), a
// person at a terminal sees how far the build has come — the progress line of
// `evidex index`, from index/status — instead of nothing for as long as the
// build takes. Only on a terminal (stderr), only once the answer is late, and
// erased before anything is printed; nothing goes to stdout.
import { stderr } from '../local/human.js';
import { Methods } from '../protocol/messages.js';
import type { Client } from './connection.js';
import { ProgressLine } from './progress.js';

/** An answer within this time shows nothing: a daemon with its index answers in milliseconds. */
const QUIET_MS = 300;
/** How often the build's progress is asked for while the answer is awaited (one small request). */
const POLL_MS = 200;

/** `work`'s outcome, with the build's progress on stderr meanwhile when it is a terminal and the daemon is building its index. */
export async function whileBuilding<T>(client: Client, work: Promise<T>): Promise<T> {
  const out = stderr();
  if (!out.isTTY) return work;
  let settled = false;
  let wake: () => void = () => undefined;
  const pause = (ms: number) => new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    wake = () => { clearTimeout(t); resolve(); };
  });
  const bar = new ProgressLine(out, false);
  const shown = (async () => {
    await pause(QUIET_MS);
    while (!settled) {
      const s = await client.request(Methods.indexStatus).catch(() => null);
      if (s === null || settled) return;
      const progress = s.daemon.startupProgress;
      // A complete index answers at once, during a catch-up too: only a first (or cut-short) build is waited for.
      if (progress && s.index.state !== 'ready') bar.update(progress);
      await pause(POLL_MS);
    }
  })();
  try {
    return await work;
  } finally {
    settled = true;
    wake();
    await shown;
    bar.done();
  }
}
