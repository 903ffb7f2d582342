// A tools/call that waits on the daemon's first build, told to the host as
// MCP progress notifications (docs/mcp.md, "A call that waits for the first
// build") when its request carried `_meta.progressToken`: a host's request
// timeout (the SDK client's is 60 s) can be shorter than a large repository's
// first build, and a host that restarts it on progress (the SDK client's
// `resetTimeoutOnProgress`) keeps waiting while the build moves. The progress
// itself is client/build-wait.ts's watchBuild, the one source every command
// shows; this turns each of its looks into a notification, or none.
//
// MCP requires `progress` to rise with every notification, total known or
// not, while a build's counts start again at each phase (walk, parse,
// write). So `progress` counts files parsed, of `total` the files the walk
// found to parse plus one for the last phase (writing and resolving imports),
// which `done` completes; a look that finds the count unchanged (a phase that
// counts no files, such as the walk or the write) adds a thousandth. The
// words are the progress line's (`parse 1200/3536 files`).
import type { BuildProgress } from '../../indexer/api.js';
import { progressWords } from '../progress.js';
import type { RequestId } from './messages.js';

/** How often the build is looked at while a call with a progress token waits: at most one notification per look. */
export const PROGRESS_EVERY_MS = 1000;
/** Looks that find nothing new before one is sent all the same, so a host that restarts its timeout on progress does not give up. */
export const KEEPALIVE_LOOKS = 10;

/** The `_meta.progressToken` of a request's params: a string or an integer (MCP), else none. */
export function progressTokenOf(params: Record<string, unknown> | undefined): RequestId | undefined {
  const meta = params?._meta;
  if (meta === null || typeof meta !== 'object') return undefined;
  const t = (meta as { progressToken?: unknown }).progressToken;
  return typeof t === 'string' || (typeof t === 'number' && Number.isInteger(t)) ? t : undefined;
}

/** The notifications/progress params a build's looks make, in order; null for a look that sends none. */
export class BuildProgressNotes {
  /** The files the walk found to parse, once the parse phase has said it. */
  private parseTotal: number | undefined;
  private last = -1;
  private lastWords = '';
  private quietLooks = 0;

  constructor(private readonly token: RequestId) {}

  /** The notification (JSON text) for this look at the build, or null when it brings nothing new and a keep-alive is not due. */
  look(p: BuildProgress): string | null {
    if (p.phase === 'parse') this.parseTotal = p.total;
    const words = progressWords(p).plain;
    const total = this.parseTotal === undefined ? undefined : this.parseTotal + 1;
    const measure = p.phase === 'parse' ? p.done
      : p.phase === 'done' ? (total ?? 1)
      : p.phase === 'write' ? (this.parseTotal ?? 0)
      : 0;
    const moved = measure > this.last || words !== this.lastWords;
    if (!moved && ++this.quietLooks < KEEPALIVE_LOOKS) return null;
    this.quietLooks = 0;
    // Rising with every notification, as MCP requires: by a thousandth when the count has not.
    const progress = measure > this.last ? measure : Math.round((this.last + 0.001) * 1000) / 1000;
    this.last = progress;
    this.lastWords = words;
    const params = { progressToken: this.token, progress, ...(total === undefined ? {} : { total: Math.max(total, progress) }), message: `waiting for the index's first build: ${words}` };
    return JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params });
  }
}
