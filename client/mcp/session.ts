// One MCP session: what evidex answers to a host, whatever carries the messages
// (client/mcp/stdio.ts, client/mcp/http.ts). It is a client of the
// repository's daemon like every other command, so the index, its watcher and
// the audit log are shared: the tool list (this build's own while no daemon
// can be reached) and every call are the daemon's, and
// the host is named to it by its clientInfo.
//
// The session answers initialize, ping, tools/list and tools/call, and takes
// notifications/initialized and notifications/cancelled; any other request is
// -32601, any other notification is ignored. As MCP's lifecycle has it,
// initialize comes first and once: before it only ping is answered (the
// tools get -32600), and a second initialize is refused. Nothing here decides what a call
// may do: the daemon validates, applies the path rules and audits every call.
// Answers are JSON text written once: the tool list is made once per daemon
// connection and served as it is; a call's answer is written once and spliced
// in twice (structuredContent, and the same JSON as text). A call that waits
// on the daemon's first build is said once on stderr and, when its request
// carried a progress token, told to the host as progress (progress.ts).
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { boundsRefusal } from '../../indexer/query/arg-bounds.js';
import { toolDescriptors } from '../../indexer/query/schemas.js';
import { Methods } from '../../protocol/messages.js';
import { watchBuild } from '../build-wait.js';
import { closedBy, type Client } from '../connection.js';
import { progressWords } from '../progress.js';
import { clientHeaderName, DaemonLink } from './daemon-link.js';
import { ErrorCode, errorText, resultText, type Incoming, type RequestId } from './messages.js';
import { BuildProgressNotes, PROGRESS_EVERY_MS, progressTokenOf } from './progress.js';
import { answerResultJson, mcpTool, refusalLine, refusalResult, serverInstructions } from './tools.js';

export interface SessionOptions {
  root: string;
  version: string;
  /** Opens a daemon connection named after the host (connect(), starting a daemon when none runs). */
  open: (clientName: string) => Promise<Client>;
  /** Diagnostics (stderr, `evidex mcp:`). */
  log: (line: string) => void;
  /** After the daemon connection dropped: open it again on the next request (stdio), or end (HTTP). */
  reconnect: boolean;
  /** The daemon connection dropped and `reconnect` is off: the session is over. */
  onLost?: (why: string) => void;
}

export class McpSession {
  /** The host's name from initialize (clientInfo.name), as the daemon is told it. */
  private hostName: string | undefined;
  /** initialize was answered: the session takes other requests, and no second initialize. */
  private initialized = false;
  private readonly link: DaemonLink;
  /** The tool list as JSON, made once per daemon connection (a new daemon may be a new evidex). */
  private tools: { client: Client; json: Promise<string> } | null = null;
  /** tools/call requests in flight, by id: notifications/cancelled aborts one (`byHost`), the session's end all of them. */
  private readonly calls = new Map<RequestId, { ac: AbortController; byHost: boolean }>();
  /** The initialize result, the same for every host but for the protocol version. */
  private readonly serverInfo: string;
  /** A call waiting on the first build has been said on stderr: once per session is enough to say why calls are slow. */
  private buildSaid = false;

  constructor(private readonly opts: SessionOptions) {
    this.link = new DaemonLink({ open: opts.open, name: () => this.clientName, log: opts.log, reconnect: opts.reconnect, onLost: opts.onLost });
    this.serverInfo = JSON.stringify({ capabilities: { tools: {} }, serverInfo: { name: 'evidex', version: opts.version }, instructions: serverInstructions(opts.root) });
  }

  /** The name the daemon knows this host by: its clientInfo.name made into a header value, "mcp" before initialize. */
  get clientName(): string {
    return clientHeaderName(this.hostName);
  }

  /**
   * The answer to one message, as JSON text; null for a notification, a
   * response, or a request the host cancelled (it gets no answer). `notify`
   * sends a message that belongs to the request before its answer (progress
   * notifications); without it, none is sent.
   */
  async handle(m: Incoming, notify?: (json: string) => void): Promise<string | null> {
    if (m.kind === 'response') return null;
    if (m.kind === 'notification') {
      this.notification(m.method, m.params);
      return null;
    }
    try {
      return await this.request(m.id, m.method, m.params, notify);
    } catch (e) {
      // A bug, not a refusal: the host gets -32603 with one line, and the session goes on.
      return errorText({ id: m.id, code: ErrorCode.InternalError, message: refusalLine(e) });
    }
  }

  /** Connects to the daemon and prepares the tool list now, so the host's first calls do not wait for them. */
  async warm(): Promise<void> {
    await this.toolsJson();
  }

  /** Ends the session: calls in flight are answered with a refusal saying so, the daemon connection closes. */
  async close(why = 'the MCP session ended'): Promise<void> {
    for (const c of this.calls.values()) c.ac.abort(new Error(why));
    this.calls.clear();
    await this.link.close();
  }

  private notification(method: string, params: Record<string, unknown> | undefined): void {
    if (method === 'notifications/initialized') {
      this.warm().catch(() => undefined);
    } else if (method === 'notifications/cancelled') {
      const id = params?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.cancel(id, typeof params?.reason === 'string' ? params.reason : 'cancelled by the host');
    }
  }

  /**
   * The host gave up on a call (notifications/cancelled, or over HTTP by
   * closing its request): it is cancelled in the daemon too, and gets no answer.
   */
  cancel(id: RequestId, why: string): void {
    const call = this.calls.get(id);
    if (!call) return;
    call.byHost = true;
    call.ac.abort(new Error(why));
  }

  private async request(id: RequestId, method: string, params: Record<string, unknown> | undefined, notify?: (json: string) => void): Promise<string | null> {
    // The lifecycle (MCP): initialize first and once; before it, only ping.
    if (method === 'initialize' && this.initialized) {
      return errorText({ id, code: ErrorCode.InvalidRequest, message: 'already initialized: initialize comes once, at the start of a session' });
    }
    if ((method === 'tools/list' || method === 'tools/call') && !this.initialized) {
      return errorText({ id, code: ErrorCode.InvalidRequest, message: `not initialized: send initialize before ${oneLineMethod(method)}` });
    }
    switch (method) {
      case 'initialize': return resultText(id, this.initialize(params));
      case 'ping': return resultText(id, '{}');
      case 'tools/list': {
        try {
          return resultText(id, await this.toolsJson());
        } catch (e) {
          return errorText({ id, code: ErrorCode.InternalError, message: refusalLine(e) });
        }
      }
      case 'tools/call': return this.call(id, params as { name: string; arguments?: Record<string, unknown> }, notify);
      default: return errorText({ id, code: ErrorCode.MethodNotFound, message: 'Method not found' });
    }
  }

  /** The initialize result: the version the host asked for when this server speaks it, else the latest. */
  private initialize(params: Record<string, unknown> | undefined): string {
    this.initialized = true;
    const info = params?.clientInfo as { name?: unknown } | undefined;
    this.hostName = typeof info?.name === 'string' ? info.name : undefined;
    const asked = params?.protocolVersion;
    const version = typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
    return `{"protocolVersion":${JSON.stringify(version)},${this.serverInfo.slice(1)}`;
  }

  /**
   * The tool list for the current daemon connection, made from its tools/list once. With no daemon to
   * ask (a folder evidex does not index unasked, a start that failed), this build's own list, the one
   * its daemon answers: a host lists the tools first, and with them listed each call's refusal says why
   * none can run (the daemon's, once one runs, is asked at the next tools/list).
   */
  private async toolsJson(): Promise<string> {
    let client: Client;
    try {
      client = await this.link.get();
    } catch {
      return JSON.stringify({ tools: toolDescriptors().map(mcpTool) });
    }
    if (this.tools?.client !== client) {
      const json = client.request(Methods.toolsList).then(({ tools }) => JSON.stringify({ tools: tools.map(mcpTool) }));
      const entry = { client, json };
      this.tools = entry;
      // A failed fetch is not kept: the next tools/list asks again.
      json.catch(() => { if (this.tools === entry) this.tools = null; });
    }
    return this.tools.json;
  }

  private async call(id: RequestId, params: { name: string; arguments?: Record<string, unknown> }, notify?: (json: string) => void): Promise<string | null> {
    const args = params.arguments ?? {};
    // The daemon's own first check, here too: arguments nested 100,000 deep would overflow the stack of the
    // JSON writer that sends them, so they get the daemon's documented refusal without being sent.
    const excess = boundsRefusal(params.name, args);
    if (excess) return resultText(id, JSON.stringify(refusalResult(excess)));
    // A task-augmented call (params.task) is run as a plain call: this server declares no tasks capability.
    const call = { ac: new AbortController(), byHost: false };
    const { signal } = call.ac;
    this.calls.set(id, call);
    // Stopped at once, not when the daemon says so: a call the host cancelled gets no answer (it stopped
    // waiting); one cut short by the session's end gets a refusal saying why (the host is still waiting).
    const stopped = new Promise<string | null>((resolve) => signal.addEventListener('abort', () => {
      resolve(call.byHost ? null : JSON.stringify(refusalResult(signal.reason)));
    }, { once: true }));
    try {
      const answer = (async () => {
        const daemon = await this.link.get();
        const watch = this.watchBuild(daemon, notify && progressTokenOf(params as Record<string, unknown>), notify, signal);
        try {
          // The abort travels on as $/cancelRequest: the daemon stops working on the call.
          return answerResultJson(await daemon.request(Methods.toolsCall, { name: params.name, arguments: args }, signal));
        } catch (e) {
          throw await this.daemonGone(daemon, e);
        } finally {
          // Before the answer is written: no progress follows it (MCP).
          await watch.stop();
        }
      })().catch((e: unknown) => JSON.stringify(refusalResult(e)));
      const json = await Promise.race([answer, stopped]);
      return json === null ? null : resultText(id, json);
    } finally {
      if (this.calls.get(id) === call) this.calls.delete(id);
    }
  }

  /**
   * A call's failure as the host is told it: when the daemon connection closed
   * under the call (the daemon was stopped or restarted, or crashed), the
   * refusal line `daemon_unavailable: …` saying so and how to go on; any other
   * failure as it is. The call is not retried here: a stopped daemon is the
   * user's doing, and the host's next call (over stdio) starts a new one.
   */
  private async daemonGone(daemon: Client, e: unknown): Promise<unknown> {
    return (await closedBy(daemon)) ? new Error(daemonGoneLine(refusalLine(e), this.opts.reconnect)) : e;
  }

  /**
   * Watches the first build while a call waits on it: said once on stderr,
   * and each look sent to the host as progress when it gave a token (and a
   * way to send it), until the call is answered or cancelled.
   */
  private watchBuild(daemon: Client, token: RequestId | undefined, notify: ((json: string) => void) | undefined, signal: AbortSignal) {
    const notes = token === undefined || !notify ? null : new BuildProgressNotes(token);
    return watchBuild(daemon, (p) => {
      if (p === null || signal.aborted) return;
      if (!this.buildSaid) {
        this.buildSaid = true;
        this.opts.log(`a call waits for the index's first build (${progressWords(p).plain}); ${notes ? 'the host is sent its progress' : 'the host asked for no progress (no progressToken), so it is told nothing until the answer'}`);
      }
      const note = notes?.look(p);
      if (note) notify!(note);
    }, { everyMs: PROGRESS_EVERY_MS });
  }
}

/**
 * The refusal of a call whose daemon connection closed under it (`why`), and
 * how to go on: over stdio the next call starts a new daemon (`reconnect`);
 * over HTTP the session has ended with it, and the host starts a new one.
 */
export function daemonGoneLine(why: string, reconnect: boolean): string {
  const retry = reconnect ? 'retry: the next call starts a new daemon' : 'retry in a new session: this one has ended (its next request gets 404)';
  return `daemon_unavailable: the evidex daemon stopped while this call ran (${why}); ${retry}`;
}

/** A method name as a message quotes it: short, on one line. */
function oneLineMethod(method: string): string {
  const m = method.replace(/[^\x20-\x7e]/g, '?');
  return m.length > 60 ? `${m.slice(0, 59)}…` : m;
}
