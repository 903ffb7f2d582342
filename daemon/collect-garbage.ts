// A full garbage collection on demand, for the one moment the daemon knows its
// heap is mostly garbage: the end of warm-up, which reads every file's text
// and rows and answers thousands of its own calls. V8 collects the old
// generation only as it grows, and an idle daemon's does not: on
// site-packages ~30-50 MB of anonymous memory stayed resident as garbage and
// unreturned pages (docs/performance/memory.md).
//
// Asked through an in-process inspector session (no port is opened): its
// collection is V8's "all available garbage" one, which compacts and gives
// freed pages back to the system. The `gc()` of --expose-gc does one full
// collection that frees the objects but, measured, left RssAnon where it was.
import { Session } from 'node:inspector';

/** Runs the collection; resolves to how long it took (ms), or null when the runtime refused. */
export function collectGarbage(): Promise<number | null> {
  return new Promise((resolve) => {
    const session = new Session();
    try {
      session.connect();
    } catch {
      resolve(null);
      return;
    }
    const t0 = performance.now();
    session.post('HeapProfiler.collectGarbage', (err) => {
      const ms = performance.now() - t0;
      // Disconnecting inside the session's own callback left the process's event loop stalled: done on the next turn.
      setImmediate(() => { session.disconnect(); resolve(err ? null : ms); });
    });
  });
}
