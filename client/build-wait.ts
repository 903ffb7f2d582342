// While a client waits on the daemon's first build (a fresh repository: the
// daemon answers tool calls once its index is whole), how far the build has
// come — the daemon's start-up progress from index/status, what `evidex
// index` shows — is asked for and handed to whoever shows it: the tool
// commands' progress line (whileBuilding, below), `evidex ask` and `chat`
// (AskView), and an MCP host's progress notifications (mcp/progress.ts). This
// is the one place that asks; each shows it its own way.
import type { BuildProgress } from '../indexer/api.js';
import { stderr } from '../local/human.js';
import { Methods } from '../protocol/messages.js';
import type { Client } from './connection.js';
import { ProgressLine } from './progress.js';

/** An answer within this time shows nothing, and costs no status request: a daemon with its index answers in milliseconds. */
export const QUIET_MS = 300;
/** How often the build's progress is asked for while the answer is awaited (one small request). */
export const POLL_MS = 200;

export interface BuildWatchOptions {
  /** How long to wait before the first look (default QUIET_MS). */
  quietMs?: number;
  /** How often to look again while the build runs (default POLL_MS). */
  everyMs?: number;
}

export interface BuildWatch {
  /** Stops looking; resolves once the last look is over (after which `show` is not called again). */
  stop(): Promise<void>;
}

/**
 * Looks at the daemon's first build until stopped: `show(p)` with its
 * progress at each look while the index is being built, and `show(null)`
 * once, when a build that was shown is over (or the watch stops). An index
 * that is complete (answering at once, during a start-up catch-up too) is
 * looked at once and then left alone; so is a daemon that cannot say.
 */
export function watchBuild(client: Pick<Client, 'request'>, show: (p: BuildProgress | null) => void, opts: BuildWatchOptions = {}): BuildWatch {
  let stopped = false;
  let wake: () => void = () => undefined;
  const pause = (ms: number) => new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    wake = () => { clearTimeout(t); resolve(); };
  });
  let shown = false;
  const looking = (async () => {
    await pause(opts.quietMs ?? QUIET_MS);
    while (!stopped) {
      const s = await client.request(Methods.indexStatus).catch(() => null);
      if (s === null || stopped || s.index.state === 'ready') break;
      const progress = s.daemon.startupProgress;
      if (progress) { shown = true; show(progress); }
      await pause(opts.everyMs ?? POLL_MS);
    }
    if (shown) show(null);
  })();
  return {
    stop() {
      stopped = true;
      wake();
      return looking;
    },
  };
}

/** `work`'s outcome, with the build's progress on stderr meanwhile when it is a terminal and the daemon is building its index. */
export async function whileBuilding<T>(client: Client, work: Promise<T>): Promise<T> {
  const out = stderr();
  if (!out.isTTY) return work;
  const bar = new ProgressLine(out, false);
  const watch = watchBuild(client, (p) => { if (p) bar.update(p); else bar.done(); });
  try {
    return await work;
  } finally {
    await watch.stop();
    bar.done();
  }
}
