// The daemon's write queue as a watcher test holds it: writes run one after
// another, as daemon/write-queue.ts runs them, and none before the test opens
// the gate, so what the watcher has seen stays unwritten as long as the test
// needs (no timing involved).
export interface GatedQueue {
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Lets the writes through (again: a no-op). */
  open(): void;
}

export function gatedQueue(): GatedQueue {
  let open!: () => void;
  let tail: Promise<unknown> = new Promise<void>((r) => { open = r; });
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => { const p = tail.then(fn); tail = p.catch(() => undefined); return p; };
  return { exclusive, open };
}
