// `evidex ask "QUESTION" [--model M] [--json]`: sends `ask` to the daemon and
// renders its progress live — a spinner line on a terminal, plain lines when
// piped, one JSON object per line with --json — then the answer, each citation
// checked (✔ backed / ✘ not backed) and the evidence it rests on. Ctrl-C
// cancels the question on the daemon, which aborts the Ollama request.
//
// The settings are this client's, not the daemon's: the daemon may have been
// started long ago from another shell, so OLLAMA_HOST, EVIDEX_MODEL,
// EVIDEX_ASK_MAX_STEPS, EVIDEX_ASK_TIMEOUT_S and EVIDEX_THINK are read here and
// sent with every `ask` (only those set; --model wins over EVIDEX_MODEL).
import type { Evidence } from '../indexer/evidence.js';
import { askSettingsFromEnv, type AskSettings } from '../daemon/ask/config.js';
import type { AskEvent, AskResult } from '../daemon/ask/events.js';
import { Notifications, type AskEventParams } from '../protocol/messages.js';

/** The part of client/connection.ts's Client that asking needs. */
export interface AskClient {
  requestRaw(method: string, params?: unknown, signal?: AbortSignal): Promise<unknown>;
  onNotification(fn: (method: string, params: unknown) => void): () => void;
  close(): Promise<void>;
}

export interface AskCommandOptions {
  model?: string;
  json: boolean;
  out: NodeJS.WriteStream;
  /** Where the settings come from (default process.env); tests pass their own. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The settings this client sends with `ask`: those set in `env`, and `--model`
 * over EVIDEX_MODEL. Throws a one-line error naming the variable for a value
 * that cannot be used (the host is checked by the daemon, which normalises it).
 */
export function clientAskSettings(model: string | undefined, env: NodeJS.ProcessEnv = process.env): AskSettings {
  const settings = askSettingsFromEnv(env);
  if (model !== undefined && model.trim() !== '') settings.model = model.trim();
  return settings;
}

/** Exit codes: 0 answered; 1 Ollama or daemon error; 3 stopped without an answer (refusals, step cap, time limit); 130 cancelled. */
export function exitCodeFor(result: AskResult): number {
  switch (result.stopped) {
    case 'answered': return 0;
    case 'cancelled': return 130;
    case 'model_error': return 1;
    default: return 3;
  }
}

/** The AskEvent inside `ask/event` params (AskEventParams: the event plus its request id). */
function eventOf(params: unknown): AskEvent | null {
  if (!params || typeof params !== 'object' || typeof (params as { type?: unknown }).type !== 'string') return null;
  const { requestId: _drop, ...event } = params as AskEventParams;
  return event as AskEvent;
}

/** Sends one `ask` and feeds its events to onEvent as they arrive. A JSON-RPC error becomes an Error with a one-line message. */
export async function askViaClient(
  client: AskClient, question: string, settings: AskSettings, onEvent: (e: AskEvent) => void, signal?: AbortSignal,
): Promise<AskResult> {
  const off = client.onNotification((method, params) => {
    if (method !== Notifications.askEvent) return;
    const e = eventOf(params);
    if (e) onEvent(e);
  });
  try {
    return (await client.requestRaw('ask', { question, ...settings }, signal)) as AskResult;
  } catch (err) {
    const data = (err as { data?: { code?: string; message?: string } }).data;
    throw new Error(data?.message ?? (err as Error).message);
  } finally {
    off();
  }
}

const SPIN = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const oneLine = (s: string, max = 120): string => { const t = s.replace(/\s+/g, ' '); return t.length > max ? `${t.slice(0, max - 1)}…` : t; };

/** Renders events as human-readable progress. On a TTY, a spinner line is redrawn in place and cleared before any other output. */
export class ProgressRenderer {
  private spinnerText = '';
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private inContent = false;       // the cursor sits after streamed answer text
  private thinkingShown = new Set<number>();
  constructor(private out: NodeJS.WriteStream, private tty: boolean) {}

  private clearSpinner(): void {
    if (this.tty && this.spinnerText) this.out.write('\r\x1b[2K');
  }
  private drawSpinner(): void {
    if (!this.tty || !this.spinnerText || this.inContent) return;
    this.out.write(`\r\x1b[2K${SPIN[this.frame++ % SPIN.length]} ${this.spinnerText}`);
  }
  private spin(text: string): void {
    this.spinnerText = text;
    if (this.tty && !this.timer) this.timer = setInterval(() => this.drawSpinner(), 80);
    this.drawSpinner();
  }
  private line(text: string): void {
    this.clearSpinner();
    if (this.inContent) { this.out.write('\n'); this.inContent = false; }
    this.out.write(text + '\n');
    this.drawSpinner();
  }

  event(e: AskEvent): void {
    switch (e.type) {
      case 'started': this.line(`asking ${e.model} at ${e.host} (up to ${e.maxSteps} steps, ${e.timeoutMs / 1000} s)`); this.spin('checking the model…'); break;
      case 'step': this.spin(`step ${e.step}/${e.maxSteps}: waiting for the model…`); break;
      case 'thinking':
        if (this.tty) this.spin(`step ${e.step}: thinking… ${oneLine(e.text, 60)}`);
        else if (!this.thinkingShown.has(e.step)) { this.thinkingShown.add(e.step); this.line(`step ${e.step}: thinking…`); }
        break;
      case 'content':
        this.clearSpinner();
        this.inContent = true;
        this.out.write(e.text);
        break;
      case 'tool_call': {
        const mark = e.decision === 'allowed' ? '✔ allowed' : `✘ ${refusalLine(e.code, e.reason)}`;
        this.line(`→ ${e.name} ${oneLine(JSON.stringify(e.arguments ?? null), 160)}  ${mark}`);
        if (e.decision === 'allowed') this.spin(`running ${e.name}…`);
        break;
      }
      case 'tool_result': this.line(`  ← ${e.items} item${e.items === 1 ? '' : 's'} (total ${e.total}) in ${e.ms} ms`); break;
      case 'citations': case 'stopped': this.stop(); break;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clearSpinner();
    this.spinnerText = '';
    if (this.inContent) { this.out.write('\n'); this.inContent = false; }
  }
}

/**
 * "refused (CODE): REASON", once. The reason the daemon reports is the exact line
 * the model got back, which already starts with "refused (CODE): " (prompt.ts
 * refusalText); that prefix is not repeated.
 */
export function refusalLine(code: string | undefined, reason: string | undefined): string {
  const head = code ? `refused (${code})` : 'refused';
  if (!reason) return head;
  const m = /^refused(?: \(([^)]*)\))?: /.exec(reason);
  return m ? `${m[1] !== undefined ? `refused (${m[1]})` : head}: ${reason.slice(m[0].length)}` : `${head}: ${reason}`;
}

function span(e: { start_line: number; end_line: number }): string {
  return e.start_line === e.end_line ? `${e.start_line}` : `${e.start_line}-${e.end_line}`;
}

/** The end of an ask, for humans: why it stopped, citations checked, evidence, and the attempts when it did not answer. */
export function renderResult(r: AskResult, out: NodeJS.WriteStream): void {
  const w = (s: string): void => { out.write(s + '\n'); };
  if (r.stopped !== 'answered') {
    w(`\nstopped: ${r.stopped}${r.message ? ` — ${r.message}` : ''}`);
    if (r.attempts.length) {
      w('attempts:');
      for (const a of r.attempts) {
        const decision = a.decision === 'refused' ? refusalLine(a.code, a.reason) : a.decision;
        w(`  step ${a.step}: ${a.tool} ${oneLine(JSON.stringify(a.arguments ?? null), 160)}  ${decision}`);
      }
    }
  }
  if (r.citations.length) {
    const backed = r.citations.filter((c) => c.backed).length;
    w(`\ncitations: ${backed} of ${r.citations.length} backed by the evidence`);
    for (const c of r.citations) w(`  ${c.backed ? '✔' : '✘'} ${c.path}:${span(c)}${c.backed ? '' : '  (not in the evidence gathered for this question)'}`);
  } else if (r.stopped === 'answered' && r.answer.trim()) {
    w('\ncitations: none (the answer cites no path:line)');
  }
  if (r.evidence.length) {
    w(`\nevidence (${r.evidence.length}):`);
    for (const e of r.evidence as Evidence[]) w(`  ${e.path}:${span(e)}  ${e.kind}  ${oneLine(e.name, 60)}`);
  }
}

/** Runs `evidex ask`; returns the process exit code. */
export async function runAskCommand(client: AskClient, question: string, opts: AskCommandOptions): Promise<number> {
  const { out } = opts;
  const ac = new AbortController();
  let interrupts = 0;
  // First Ctrl-C: cancel on the daemon ($/cancelRequest → the loop aborts its Ollama request) and
  // wait for its `cancelled` answer; a second one, or no answer within 3 s, drops the connection.
  const onSigint = (): void => {
    interrupts += 1;
    if (interrupts === 1) {
      ac.abort();
      setTimeout(() => { void client.close(); }, 3000).unref();
    } else {
      void client.close();
    }
  };
  process.on('SIGINT', onSigint);
  const renderer = opts.json ? null : new ProgressRenderer(out, !!out.isTTY);
  const onEvent = (e: AskEvent): void => {
    if (opts.json) out.write(JSON.stringify({ event: e }) + '\n');
    else renderer!.event(e);
  };
  try {
    const settings = clientAskSettings(opts.model, opts.env ?? process.env);
    const result = await askViaClient(client, question, settings, onEvent, ac.signal);
    renderer?.stop();
    if (opts.json) out.write(JSON.stringify({ result }) + '\n');
    else renderResult(result, out);
    return exitCodeFor(result);
  } catch (err) {
    renderer?.stop();
    const message = interrupts > 0 ? 'cancelled' : (err as Error).message;
    if (opts.json) out.write(JSON.stringify({ error: { message } }) + '\n');
    else out.write(`evidex ask: ${message}\n`);
    return interrupts > 0 ? 130 : 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
