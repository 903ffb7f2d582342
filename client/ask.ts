// `evidex ask "QUESTION" [--model M] [--json]`: sends `ask` to the daemon and
// shows it as it runs — progress on stderr (a spinner only on a terminal;
// while the daemon's first build runs, that build's progress, as the tool
// commands show it), the answer on stdout (streamed on a terminal, written
// whole into a file or pipe), then on stderr each citation checked (✔ backed
// / ✘ not backed) and the evidence; --json prints one JSON object per line
// on stdout instead. Ctrl-C cancels the question on the daemon, which aborts
// the Ollama request.
//
// The settings are this client's, not the daemon's: the daemon may have been
// started long ago from another shell, so OLLAMA_HOST, EVIDEX_API,
// EVIDEX_API_BASE, EVIDEX_API_KEY, EVIDEX_MODEL, EVIDEX_ASK_MAX_STEPS,
// EVIDEX_ASK_CALLS_PER_TURN, EVIDEX_ASK_TIMEOUT_S and EVIDEX_THINK are read
// here and sent with every `ask` (only those set; --model wins over
// EVIDEX_MODEL, --api over EVIDEX_API).
//
// Everything shown — the answer as it streams, tool calls, citations, the
// evidence — is written through local/human.ts: a model that copies a file's
// escape sequences into its answer reaches the terminal as text, even when a
// sequence is split across streamed pieces (each character is judged alone).
import type { BuildProgress } from '../indexer/api.js';
import type { Evidence } from '../indexer/evidence.js';
import { CLEAR_LINE, fitLine, human, join, line, paint, path, screenOf, stderr, text, type Colour, type Part, type Screen, type Shown } from '../local/human.js';
import { apiNotice, askSettingsFromEnv, type AskSettings } from '../protocol/ask-settings.js';
import type { AskEvent, AskResult } from '../protocol/ask-events.js';
import { Methods, Notifications, type AskEventParams, type ModelApi } from '../protocol/messages.js';
import { watchBuild } from './build-wait.js';
import { summaryTail, type SummaryOptions } from './citations-view.js';
import type { Client } from './connection.js';
import { ProgressLine } from './progress.js';
import { lineSpan } from './line-span.js';

/** The part of client/connection.ts's Client that asking needs. */
export type AskClient = Pick<Client, 'request' | 'onNotification' | 'close'>;

export interface AskCommandOptions {
  model?: string;
  /** --api: which API serves the model (EVIDEX_API's value, winning over it). */
  api?: ModelApi;
  json: boolean;
  /** The answer (and with --json, everything). */
  out: Screen | NodeJS.WriteStream;
  /** Progress and the citation check (default process.stderr). */
  err?: Screen | NodeJS.WriteStream;
  /** Where the settings come from (default process.env); tests pass their own. */
  env?: NodeJS.ProcessEnv;
  /** --evidence: list every citation and evidence item after the answer, however many. */
  evidence?: boolean;
  /** A root-relative path as printed here (from the current folder); default as is. */
  shown?: (rootPath: string) => string;
}

/** The command-line flags that are ask settings: --model over EVIDEX_MODEL, --api over EVIDEX_API. */
export interface AskFlags { model?: string | undefined; api?: ModelApi | undefined }

/**
 * The settings this client sends with `ask`: those set in `env`, with the
 * flags over their variables. Throws a one-line error naming the variable for
 * a value that cannot be used (a host or base is checked by the daemon, which
 * normalises it). `notice` hears the one line said when OLLAMA_HOST ending in
 * /v1 is taken as an OpenAI-compatible server.
 */
export function clientAskSettings(flags: AskFlags, env: NodeJS.ProcessEnv = process.env, notice?: (line: string) => void): AskSettings {
  const withFlags = flags.api !== undefined ? { ...env, EVIDEX_API: flags.api } : env;
  const settings = askSettingsFromEnv(withFlags);
  if (flags.model !== undefined && flags.model.trim() !== '') settings.model = flags.model.trim();
  const line = apiNotice(withFlags);
  if (line !== null) notice?.(line);
  return settings;
}

/**
 * Exit codes (docs/ask.md): 0 answered with every citation backed; 4 answered
 * with a citation the evidence does not back; 5 answered stating facts about
 * the code without citing any evidence, though tools ran; 3 stopped without a
 * (whole) answer; 1 an Ollama or daemon error; 130 cancelled.
 */
export function exitCodeFor(result: AskResult): number {
  switch (result.stopped) {
    case 'answered': return result.uncited ? 5 : result.citations.every((c) => c.backed) ? 0 : 4;
    case 'cancelled': return 130;
    case 'model_error': return 1;
    default: return 3;
  }
}

/** The AskEvent inside `ask/event` params (the event plus its request id); null for params that hold no event. */
function eventOf(params: AskEventParams): AskEvent | null {
  if (typeof params?.type !== 'string') return null;
  const { requestId: _drop, ...event } = params;
  return event;
}

/** The daemon went away under a question (stopped, or killed): the connection is gone, and a new one starts a daemon. */
export class DaemonStoppedError extends Error { readonly code = 'daemon_unavailable'; }

/** The code of what stopped `ask`: the daemon's own (askViaClient keeps it), a setting refused here (AskConfigError), else as the CLI names the error. */
async function askErrorCode(e: unknown): Promise<string> {
  const code = (e as { code?: unknown } | null)?.code;
  // Ours are snake_case words; Node's own (ECONNRESET, …) are no code of evidex's.
  if (typeof code === 'string' && /^[a-z_]+$/.test(code)) return code;
  return (await import('./errors.js')).userError(e).code;
}

/** Sends one `ask` and feeds its events to onEvent as they arrive. A JSON-RPC error becomes an Error with a one-line message. */
export async function askViaClient(
  client: AskClient, question: string, settings: AskSettings, onEvent: (e: AskEvent) => void, signal?: AbortSignal,
  extra: { conversation?: string; describe_model?: boolean } = {},
): Promise<AskResult> {
  const off = client.onNotification(Notifications.askEvent, (params) => {
    const e = eventOf(params);
    if (e) onEvent(e);
  });
  try {
    return await client.request(Methods.ask, { question, ...settings, ...extra }, signal);
  } catch (err) {
    const data = (err as { data?: { code?: string; message?: string } }).data;
    const message = data?.message ?? (err as Error).message;
    // The connection ends under a question only when the daemon went away (stopped, or killed).
    if (data === undefined && /^connection (closed|error)\b/.test(message) && !signal?.aborted) {
      throw new DaemonStoppedError(`the daemon stopped before the question was answered (${message}); ask again (the next command starts a daemon)`);
    }
    // Its code kept (`invalid_arguments` for a setting the daemon refused, `ollama_unreachable`, …): `ask --json` prints it.
    throw Object.assign(new Error(message), data?.code === undefined ? {} : { code: data.code });
  } finally {
    off();
  }
}

const SPIN = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const oneLine = (s: string, max = 120): string => { const t = s.replace(/\s+/g, ' '); return t.length > max ? `${t.slice(0, max - 1)}…` : t; };

type Paint = (colour: Colour, s: Part) => Shown;

export interface ViewOptions {
  /** Where the answer goes (stdout). */
  out: Screen | NodeJS.WriteStream;
  /** Where progress, warnings and the citation check go (stderr); colours where it shows them. */
  err: Screen | NodeJS.WriteStream;
  /** For colours: NO_COLOR and TERM (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Stream the answer as it arrives (a terminal); otherwise it is written whole at the end (a file holds only the answer). */
  live?: boolean;
  /** How the citations and evidence after the answer are cut (client/citations-view.ts). */
  summary?: SummaryOptions;
}

/**
 * What a person sees of one question. Progress (steps, tool calls and their
 * decisions, warnings) goes to `err`, with a spinner only when `err` is a
 * terminal; the answer goes to `out`, streamed when `out` is a terminal and
 * written once at the end otherwise. Streamed text is never erased: the
 * spinner is stopped before the first character of it and only redrawn on a
 * fresh line after it. While the daemon builds its first index, the build's
 * progress line (client/progress.ts: redrawn in the spinner's place on a
 * terminal, a line every few seconds otherwise) stands in for the spinner.
 */
export class AskView {
  private spinnerText = '';
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private spinnerDrawn = false;
  private atLineStart = true;      // of the streamed answer text on `out`
  private streamedStep = -1;       // the step whose content is on screen
  /** A step's text that began like a tool call written as text: held until the step shows whether it is one. */
  private held: { step: number; text: string } | null = null;
  private thinkingShown = new Set<number>();
  /** Who serves the model, as warnings name it (from the `started` event). */
  private server = 'Ollama';
  /** The model asked (from the `started` event), named by the context window's line. */
  private model = 'the model';
  private readonly spinning: boolean;
  private readonly live: boolean;
  private readonly summary: SummaryOptions;
  private readonly out: Screen;
  private readonly err: Screen;
  /** The first build's progress while the question waits on it (the last look), and the line that shows it. */
  private build: BuildProgress | null = null;
  /** The question ended (stop()): a look at the build that comes after it shows nothing. */
  private ended = false;
  private readonly bar: ProgressLine;
  readonly paint: Paint = paint;
  constructor(opts: ViewOptions) {
    this.out = screenOf(opts.out, opts.env);
    this.err = screenOf(opts.err, opts.env);
    this.spinning = this.err.isTTY;
    this.live = opts.live ?? this.out.isTTY;
    this.summary = opts.summary ?? {};
    this.bar = new ProgressLine(this.err, false);
  }

  /** `work` (the question), with the daemon's first build shown while it runs (client/build-wait.ts). */
  async whileBuilding<T>(client: Pick<Client, 'request'>, work: Promise<T>): Promise<T> {
    const watch = watchBuild(client, (p) => this.building(p));
    try {
      return await work;
    } finally {
      await watch.stop();
    }
  }

  /** The first build's progress, in the spinner's place on a terminal; null: the build is over. */
  private building(p: BuildProgress | null): void {
    if (this.ended) return;
    this.build = p;
    if (p === null) { this.bar.done(); this.drawSpinner(); return; }
    this.clearSpinner();
    // Never over streamed text: drawn again on a fresh line.
    if (this.atLineStart) this.bar.update(p);
  }

  private clearSpinner(): void {
    if (this.spinnerDrawn) { this.err.write(CLEAR_LINE); this.spinnerDrawn = false; }
    if (this.err.isTTY) this.bar.done();
  }
  private drawSpinner(): void {
    if (!this.atLineStart) return;
    // On a terminal the build's line is redrawn where the spinner would be; elsewhere its lines are its own.
    if (this.build && this.err.isTTY) { this.bar.update(this.build); return; }
    if (!this.spinning || !this.spinnerText) return;
    // Narrower than the terminal (its last column left free): a line that wraps cannot be cleared in place, and each redraw would add one.
    const columns = this.err.columns;
    const label = columns === undefined ? line(this.spinnerText) : fitLine(this.spinnerText, columns - 3);
    this.err.write(human`${CLEAR_LINE}${paint('36', SPIN[this.frame++ % SPIN.length])} ${paint('2', label)}`);
    this.spinnerDrawn = true;
  }
  private spin(text: string): void {
    this.spinnerText = text;
    if (this.spinning && !this.timer) this.timer = setInterval(() => this.drawSpinner(), 80);
    if (this.atLineStart) this.drawSpinner();
  }
  /** Stops the spinner for good (until the next spin()): streamed text must not be cleared by it. */
  private quiet(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clearSpinner();
    this.spinnerText = '';
  }
  /** Ends a streamed line so progress starts on a line of its own. */
  private endAnswerLine(): void {
    if (!this.atLineStart) { this.out.write(human`\n`); this.atLineStart = true; }
  }
  line(shown: Shown): void {
    this.clearSpinner();
    this.endAnswerLine();
    this.err.line(shown);
    this.drawSpinner();
  }

  event(e: AskEvent): void {
    const p = this.paint;
    switch (e.type) {
      case 'started':
        this.server = e.api === 'openai' ? 'the server' : 'Ollama';
        this.model = e.model;
        this.line(p('2', human`asking ${e.model} at ${e.host} (${e.api === 'openai' ? 'OpenAI-compatible API; ' : ''}up to ${e.maxSteps} steps, ${e.timeoutMs / 1000} s)`));
        this.spin('checking the model…');
        break;
      case 'model': this.line(p('2', human`${this.model} reads ${e.numCtx} tokens at a time (its context window): prompts and tool results are fitted to it${e.contextLength && e.contextLength > e.numCtx ? human` (the model's ${e.contextLength}, capped by EVIDEX_NUM_CTX)` : ''}`)); break;
      case 'step': this.spin(`step ${e.step}/${e.maxSteps}: waiting for the model…`); break;
      case 'thinking':
        if (this.spinning && this.atLineStart) this.spin(`step ${e.step}: thinking… ${oneLine(e.text, 60)}`);
        // Not on a terminal (a file, a pipe, CI's log): one plain line per step, no spinner's words.
        else if (!this.thinkingShown.has(e.step)) { this.thinkingShown.add(e.step); this.line(p('2', this.spinning ? human`step ${e.step}: thinking…` : human`step ${e.step}: the model is thinking`)); }
        break;
      case 'content':
        if (!this.live) break;
        if (this.held?.step === e.step) { this.held.text += e.text; break; }
        if (this.streamedStep !== e.step && /^\s*(?:[{[]|```|<tool_call>)/.test(e.text)) { this.held = { step: e.step, text: e.text }; break; }
        if (this.streamedStep !== e.step) { this.quiet(); this.endAnswerLine(); this.streamedStep = e.step; }
        this.out.write(text(e.text));
        this.atLineStart = e.text.endsWith('\n');
        break;
      // Until its answer comes: a call that waits (on the daemon's first build) no longer shows the model as thinking.
      case 'tool_running': this.spin(`step ${e.step}: running ${e.name}…`); break;
      case 'tool_call': {
        if (this.held?.step === e.step) this.held = null; // it was a call: the line below shows it
        const mark = e.decision === 'allowed' ? p('32', '✔ allowed') : p('31', human`✘ ${refusalLine(e.code, e.reason)}`);
        this.line(human`→ ${e.name} ${oneLine(JSON.stringify(e.arguments ?? null), 160)}  ${mark}`);
        if (e.decision === 'allowed') this.spin(`running ${e.name}…`);
        break;
      }
      case 'tool_result': {
        // Only what the window cut: items past `limit` are counted by "total" already.
        const fit = e.shown < e.items || e.refs > 0
          ? human`; ${e.shown} sent to the model${e.refs ? human` (+${e.refs} as path:line)` : ''} to fit the context window` : '';
        this.line(p('2', human`  ← ${e.items} item${e.items === 1 ? '' : 's'} (total ${e.total}) in ${e.ms} ms${fit}`));
        break;
      }
      case 'summarised': this.line(p('2', human`  (step ${e.step}: ${e.results} earlier result${e.results === 1 ? '' : 's'} reduced to path:line lists to make room)`)); break;
      case 'calls_not_run': this.line(p('33', notRunLine(e.step, e.asked, e.cap))); break;
      case 'empty_reply': this.line(p('33', human`step ${e.step}: the model replied with nothing${e.retrying ? '; asking once more' : ''}`)); break;
      case 'context_cut': {
        const counted = human`it counted ${e.promptEvalCount} tokens for a ${e.numCtx}-token window`;
        this.line(p('33', human`warning: ${this.server} cut the prompt at step ${e.step} (${counted}): earlier messages were dropped, so the model may not have seen everything`));
        break;
      }
      case 'citations': case 'stopped': this.stop(); break;
    }
  }

  stop(): void {
    this.ended = true;
    this.build = null;
    this.quiet();
    this.endAnswerLine();
  }

  /** The end of a question: the answer (when not streamed) on `out`; how it ended, citations and evidence on `err`. */
  finish(r: AskResult): void {
    this.stop();
    const answered = r.stopped === 'answered' || r.stopped === 'incomplete';
    // Not streamed (not a terminal, or held back because it began like a call): written whole now.
    if (answered && r.answer && (!this.live || this.held)) this.out.write(text(r.answer.endsWith('\n') ? r.answer : `${r.answer}\n`));
    this.held = null;
    renderSummary(r, this.err, this.summary, this.server);
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

/** Calls as a person reads them: the calls of one reply past the cap on calls per turn are one entry, not hundreds. */
export function collapseNotRun<T extends { step: number; decision: string; reason?: string }>(calls: readonly T[]): Array<T | { step: number; notRun: number; reason: string }> {
  const out: Array<T | { step: number; notRun: number; reason: string }> = [];
  for (const c of calls) {
    const last = out.at(-1);
    if (c.decision !== 'not_run') out.push(c);
    else if (last && 'notRun' in last && last.step === c.step) last.notRun++;
    else out.push({ step: c.step, notRun: 1, reason: c.reason ?? 'not run' });
  }
  return out;
}

/** The progress line for a reply whose calls went past the cap. */
function notRunLine(step: number, asked: number, cap: number): Shown {
  return human`step ${step}: the model asked for ${asked} tool calls; the first ${cap} ran, the other ${asked - cap} were not run (at most ${cap} per turn, EVIDEX_ASK_CALLS_PER_TURN)`;
}

/** How an ask ended, for humans (stderr): why it stopped, the attempts when it did not answer, citations checked, the evidence. */
export function renderSummary(r: AskResult, err: Screen, opts: SummaryOptions = {}, server = 'Ollama'): void {
  const w = (s: Shown): void => { err.line(s); };
  if (r.stopped === 'incomplete') w(paint('33', human`\nanswer incomplete: ${r.message}`));
  else if (r.stopped !== 'answered') {
    w(paint('33', human`\nstopped: ${r.stopped}${r.message ? human` — ${r.message}` : ''}`));
    if (r.attempts.length) {
      w(human`attempts:`);
      for (const a of collapseNotRun(r.attempts)) {
        if ('notRun' in a) { w(human`  step ${a.step}: ${a.notRun} more call(s) not run (${a.reason})`); continue; }
        const decision = a.decision === 'refused' ? refusalLine(a.code, a.reason) : a.decision;
        w(human`  step ${a.step}: ${a.tool} ${oneLine(JSON.stringify(a.arguments ?? null), 160)}  ${decision}`);
      }
    }
  }
  if (r.contextCuts) w(paint('33', human`${server} cut the prompt in ${r.contextCuts} turn${r.contextCuts === 1 ? '' : 's'}; the answer may rest on less than was gathered`));
  w(summaryTail(r, (items) => evidenceList(items, { indent: '  ', nameMax: 60, shown: opts.shown }), opts));
}

/** Evidence as a list for a person, one `path:lines  kind  name` per item (`evidex ask`'s summary, chat's /evidence). */
export function evidenceList(items: readonly Evidence[], opts: { title?: string; indent?: string; nameMax?: number; shown?: (rootPath: string) => string } = {}): Shown {
  const rows = items.map((e) => human`${opts.indent ?? ''}${path(opts.shown ? opts.shown(e.path) : e.path)}:${lineSpan(e)}  ${e.kind}  ${oneLine(e.name, opts.nameMax)}`);
  return join(opts.title === undefined ? rows : [human`${opts.title}`, ...rows]);
}

/** Runs `evidex ask`; returns the process exit code. */
export async function runAskCommand(client: AskClient, question: string, opts: AskCommandOptions): Promise<number> {
  const out = screenOf(opts.out, opts.env);
  const err = opts.err ? screenOf(opts.err, opts.env) : stderr();
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
  const summary = { all: Boolean(opts.evidence), listHint: '`evidex ask --evidence` lists them', shown: opts.shown };
  const view = opts.json ? null : new AskView({ out, err, env: opts.env ?? process.env, summary });
  const onEvent = (e: AskEvent): void => {
    if (opts.json) out.json({ event: e });
    else view!.event(e);
  };
  try {
    const settings = clientAskSettings(opts, opts.env ?? process.env, (line) => err.line(human`evidex ask: ${line}`));
    const asked = askViaClient(client, question, settings, onEvent, ac.signal);
    const result = await (view ? view.whileBuilding(client, asked) : asked);
    if (opts.json) out.json({ result });
    else view!.finish(result);
    return exitCodeFor(result);
  } catch (e) {
    view?.stop();
    const message = interrupts > 0 ? 'cancelled' : (e as Error).message;
    // The shape every command's --json error has (docs/cli.md, Errors), its code as the CLI names it.
    if (opts.json) out.json({ error: { code: interrupts > 0 ? 'cancelled' : await askErrorCode(e), message } });
    else err.line(human`evidex ask: ${message}`);
    return interrupts > 0 ? 130 : 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
