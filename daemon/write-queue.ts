// Every write to the index (the start-up catch-up, a watcher batch, a client's
// index/refresh) runs through one WriteQueue, one after another: the builder
// is the only writer and must never run twice at once, while queries, being
// synchronous reads, need no queue at all.

/** Runs `fn`s one after another, in the order they were queued. */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  /** Writes queued and not yet finished, the running one included. */
  waiting = 0;
  run<T>(fn: () => Promise<T>): Promise<T> {
    this.waiting++;
    const p = this.tail.then(fn);
    this.tail = p.then(() => undefined, () => undefined).finally(() => { this.waiting--; });
    return p;
  }
  /** Resolves when everything queued so far has finished, or after `ms`, whichever is first; true if drained. */
  async drain(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const t = new Promise<boolean>((r) => { timer = setTimeout(() => r(false), ms); });
    const done = this.tail.then(() => true);
    try { return await Promise.race([done, t]); } finally { clearTimeout(timer); }
  }
}
