// The state every timed figure of the bench is taken in.
import type { Client } from '../../client/connection.js';
import { Methods, warmupSettled } from '../../protocol/messages.js';

/** Steady state: caches loaded, the request path warmed up, the watcher's first scan and the catch-up after it done. */
export async function waitSteady(client: Client): Promise<void> {
  for (let i = 0; ; i++) {
    const st = await client.request(Methods.indexStatus);
    if (st.index.warm && warmupSettled(st.daemon.warmup) && st.daemon.watcher === 'watching' && st.daemon.startup === 'done' && st.daemon.pendingUpdates === 0) return;
    if (i > 12_000) throw new Error('the index never reported warm');
    await new Promise((res) => setTimeout(res, 5));
  }
}
