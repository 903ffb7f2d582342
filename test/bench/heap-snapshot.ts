// A heap snapshot of a running daemon, for `npm run bench:memory -- --snapshot
// FILE`: the daemon is started with its inspector on a free local port
// (NODE_OPTIONS=--inspect=127.0.0.1:0), whose address Node writes to the
// daemon's log; the snapshot is streamed from there into FILE. Read it with
// heap-retained.ts, or in a browser's developer tools.
import { createWriteStream, readFileSync } from 'node:fs';
import WebSocket from 'ws';

/** The environment that makes a daemon open its inspector (added to the one it is started with). */
export const INSPECTED = { NODE_OPTIONS: '--inspect=127.0.0.1:0' };

/** The inspector of the daemon whose log is `log` (started with INSPECTED), connected. */
async function inspector(log: string): Promise<WebSocket> {
  const url = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(readFileSync(log, 'utf8'))?.[0];
  if (!url) throw new Error(`no inspector address in ${log}: was the daemon started with NODE_OPTIONS=--inspect?`);
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return ws;
}

/** The daemon's `process.memoryUsage()` (bytes), read through its inspector (no collection is forced). */
export async function daemonMemoryUsage(log: string): Promise<NodeJS.MemoryUsage> {
  const ws = await inspector(log);
  try {
    return await new Promise<NodeJS.MemoryUsage>((resolve, reject) => {
      ws.on('message', (m: Buffer) => {
        const msg = JSON.parse(m.toString()) as { id?: number; result?: { result: { value: string } }; error?: { message: string } };
        if (msg.id !== 1) return;
        if (msg.error) reject(new Error(msg.error.message));
        else resolve(JSON.parse(msg.result!.result.value) as NodeJS.MemoryUsage);
      });
      ws.send(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression: 'JSON.stringify(process.memoryUsage())' } }));
    });
  } finally {
    ws.close();
  }
}

/** Writes a snapshot of the daemon whose log is `log` (started with INSPECTED) to `out`. */
export async function writeDaemonSnapshot(log: string, out: string): Promise<void> {
  const ws = await inspector(log);
  const file = createWriteStream(out);
  try {
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (m: Buffer) => {
        const msg = JSON.parse(m.toString()) as { id?: number; method?: string; params?: { chunk: string }; error?: { message: string } };
        if (msg.method === 'HeapProfiler.addHeapSnapshotChunk') file.write(msg.params!.chunk);
        else if (msg.id === 1) { if (msg.error) reject(new Error(msg.error.message)); else resolve(); }
      });
      ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.takeHeapSnapshot', params: { reportProgress: false } }));
    });
  } finally {
    await new Promise((resolve) => file.end(resolve));
    ws.close();
  }
}
