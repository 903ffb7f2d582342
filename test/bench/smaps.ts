// The anonymous memory of a process summed by the kind of mapping it sits in,
// from /proc/PID/smaps: malloc's main heap (`[heap]`), V8's heap pages (its
// 256 KB anonymous mappings), the other anonymous mappings (large
// ArrayBuffers, lmdb's read buffer, the malloc arenas of other threads; the
// kernel merges adjacent ones, so their count says little) and the stacks. `npm run bench:memory -- --smaps` prints it for the daemon
// after the query pass: RssAnon alone cannot tell live buffers from pages
// malloc keeps but cannot give back.
import { readFileSync } from 'node:fs';

export interface SmapsKind { kind: string; mappings: number; anonymous: number }

const V8_PAGE = 256 * 1024;

/** Anonymous bytes of `pid` by kind of mapping, largest first. */
export function smapsByKind(pid: number): SmapsKind[] {
  const kinds = new Map<string, SmapsKind>();
  let name = '';
  let size = 0;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) { name = head[1]; continue; }
    const field = /^(\w+):\s+(\d+) kB/.exec(line);
    if (!field) continue;
    if (field[1] === 'Size') size = Number(field[2]) * 1024;
    if (field[1] !== 'Anonymous') continue;
    const bytes = Number(field[2]) * 1024;
    const kind = name === '[heap]' ? '[heap] (malloc main heap)'
      : name.startsWith('[stack') ? '[stack]'
      : name && !name.startsWith('[anon') ? 'file-backed (private copies)'
      : size === V8_PAGE ? '256 KB mappings (V8 heap pages)'
      : 'other anonymous mappings (large ArrayBuffers, V8 large objects, other threads\' arenas)';
    const k = kinds.get(kind) ?? { kind, mappings: 0, anonymous: 0 };
    k.mappings++;
    k.anonymous += bytes;
    kinds.set(kind, k);
  }
  return [...kinds.values()].sort((a, b) => b.anonymous - a.anonymous);
}
