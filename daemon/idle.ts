// The idle timeout of an auto-started daemon (docs/architecture.md): it exits after a
// period with no client. A request needs a connection, so "no client and no
// request" is counted from the moment the last client left (or from start-up
// when none came). Connections that only look (`evidex daemon list`, marked
// with OBSERVER_HEADER) do not count: listing daemons must not keep them alive.
// The durations it is set in are parsed by protocol/daemon-settings.ts.

/**
 * Calls `onIdle` once when no client has been connected for `ms`. Clients are
 * counted with opened()/closed(); the clock starts at construction, stops
 * while any client is connected and starts over when the last one leaves.
 */
export class IdleTimer {
  private clients = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(readonly ms: number, private readonly onIdle: () => void) {
    this.arm();
  }

  opened(): void {
    this.clients++;
    this.disarm();
  }

  closed(): void {
    this.clients = Math.max(0, this.clients - 1);
    if (this.clients === 0) this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  private arm(): void {
    this.disarm();
    if (this.stopped) return;
    this.timer = setTimeout(() => { this.timer = null; if (!this.stopped && this.clients === 0) this.onIdle(); }, this.ms);
    // The server keeps the process alive; this timer alone should not.
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
