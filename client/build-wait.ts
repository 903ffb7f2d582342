// While a client waits on the daemon's first build (a fresh repository: the
// daemon answers tool calls once its index is whole), how far the build has
// come — the daemon's start-up progress from index/status, what `evidex
// index` shows — is asked for and handed to whoever shows it: the tool
// commands' progress line (whileBuilding, below), `evidex ask` and `chat`
// (AskView), and an MCP host's progress notifications (mcp/progress.ts). So
// is, for `evidex index`, the write its refresh waits behind (a checkout's
// catch-up, the start-up check). This is the one place that asks; each shows
// it its own way.
import type { BuildProgress } from '../indexer/api.js';
import { human, plural, stderr, type Shown } from '../local/human.js';
import { Methods, type StatusResult } from '../protocol/messages.js';
import { readSoFar } from './catching-up-note.js';
import type { Client } from './connection.js';
import { ProgressLine, progressWords } from './progress.js';

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

/** What a look at index/status makes of it: something to show, nothing now (look again), or OVER (stop looking). */
const OVER = Symbol('over');

/**
 * Looks at the daemon's status until stopped or `pick` says OVER: `show(v)`
 * with each value it picks, and `show(null)` once, when something was shown
 * and the looking is over. A daemon that cannot say is left alone.
 */
function watchStatus<T>(client: Pick<Client, 'request'>, pick: (s: StatusResult) => T | null | typeof OVER, show: (v: T | null) => void, opts: BuildWatchOptions): BuildWatch {
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
      const v = s === null || stopped ? OVER : pick(s);
      if (v === OVER) break;
      if (v !== null) { shown = true; show(v); }
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

/**
 * Looks at the daemon's first build until stopped: `show(p)` with its
 * progress at each look while the index is being built, and `show(null)`
 * once, when a build that was shown is over (or the watch stops). An index
 * that is complete (answering at once, during a start-up catch-up too) is
 * looked at once and then left alone; so is a daemon that cannot say.
 */
export function watchBuild(client: Pick<Client, 'request'>, show: (p: BuildProgress | null) => void, opts: BuildWatchOptions = {}): BuildWatch {
  return watchStatus(client, (s) => (s.index.state === 'ready' ? OVER : s.daemon.startupProgress ?? null), show, opts);
}

/** A write of the daemon's that runs, as `evidex index` shows it while its refresh waits behind it. */
export interface WriteAhead {
  /** `the daemon's start-up check`, `the daemon catching up with 812 changes`, … */
  what: Shown;
  /** How far it has come, in words (`parse 300/1565 files`, `read 300 of 812 files`), and as a fraction (0 while unknown). */
  words: Shown | '';
  fraction: number;
}

/** The write running in the daemon as its status says it: its start-up build or check (or a re-index), else a catch-up of the watcher's; null when none shows. */
export function writeAhead(s: StatusResult): WriteAhead | null {
  const d = s.daemon;
  if (d.startup === 'running') {
    const p = d.startupProgress;
    const what = s.index.state === 'ready' ? human`the daemon's start-up check` : human`the daemon's index build`;
    return { what, words: p ? progressWords(p) : '', fraction: p && p.total > 0 ? p.done / p.total : 0 };
  }
  const c = d.catchingUp;
  if (!c) return null;
  // A batch that reads (progress) while a re-walk is queued behind it is the batch: its changes, not the re-walk's reason.
  const what = c.rewalk && (c.changes === 0 || !c.progress) ? human`the daemon's re-walk (${c.rewalk})` : human`the daemon catching up with ${plural(c.changes, 'change')}`;
  return { what, words: readSoFar(c, ''), fraction: c.progress && c.progress.total > 0 ? c.progress.done / c.progress.total : 0 };
}

/** Looks at what the daemon writes while a refresh waits its turn behind it, until stopped: show(w) at each look that finds one, show(null) once at the end. */
export function watchWritesAhead(client: Pick<Client, 'request'>, show: (w: WriteAhead | null) => void, opts: BuildWatchOptions = {}): BuildWatch {
  return watchStatus(client, writeAhead, show, opts);
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
