// An MCP session's connection to the repository's daemon, named after the host
// (X-Evidex-Client: the daemon's log and audit say which host asked). Opened on
// first need; what happens when it drops is the transport's to choose:
//
//   - over stdio the session is the process, so the next request opens it
//     again (the daemon was stopped or restarted: a new one starts);
//   - over HTTP the session ends with it (`reconnect: false`, onLost): the host
//     is told 404 and starts a new session, against the new daemon.
import { toClientName } from '../../protocol/messages.js';
import type { Client } from '../connection.js';
import { refusalLine } from './tools.js';

/** The host's name made into a client name the daemon accepts (toClientName), "mcp" when it has none. */
export function clientHeaderName(name: string | undefined): string {
  return toClientName(name, 'mcp');
}

export interface DaemonLinkOptions {
  /** Opens a connection named `clientName` (connect(), starting a daemon when none runs). */
  open: (clientName: string) => Promise<Client>;
  /** The host's name as known when the connection is opened. */
  name: () => string;
  log: (line: string) => void;
  /** Open again on the next request after the connection dropped (stdio); otherwise it stays lost (HTTP). */
  reconnect: boolean;
  /** The connection dropped (the daemon stopped, restarted or crashed), with why. */
  onLost?: (why: string) => void;
}

export class DaemonLink {
  private client: Promise<Client> | null = null;
  private lost: string | null = null;
  private closing = false;

  constructor(private readonly opts: DaemonLinkOptions) {}

  /** The connection for the next request: the open one, or one being opened. */
  get(): Promise<Client> {
    if (this.closing) return Promise.reject(new Error('the MCP server is shutting down'));
    if (this.lost !== null) return Promise.reject(new Error(this.lost));
    if (this.client) return this.client;
    const name = this.opts.name();
    const p = this.opts.open(name);
    this.client = p;
    const forget = () => { if (this.client === p) this.client = null; };
    p.then((c) => {
      this.opts.log(`connected to the evidex daemon for ${c.info.root} (pid ${c.info.pid}) as ${JSON.stringify(name)}`);
      void c.closed.then((why) => {
        forget();
        if (this.closing) return;
        if (!this.opts.reconnect) this.lost = `the evidex daemon connection closed (${why})`;
        this.opts.log(`daemon connection closed: ${why}; ${this.opts.reconnect ? 'the next request reconnects' : `the session of ${JSON.stringify(name)} ends`}`);
        this.opts.onLost?.(why);
      });
    }, (e: unknown) => { forget(); this.opts.log(`cannot reach the daemon: ${refusalLine(e)}`); });
    return p;
  }

  async close(): Promise<void> {
    this.closing = true;
    const c = await this.client?.catch(() => null);
    this.client = null;
    await c?.close();
  }
}
