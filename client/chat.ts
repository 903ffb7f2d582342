// `evidex chat [--model M]`: a conversation in the terminal. Each question is
// an `ask` in one conversation of this connection, so the daemon carries the
// earlier questions, answers and evidence into the next one (within the
// context budget). Ctrl-C cancels the answer being written, not the session;
// Ctrl-D or /quit ends it. /evidence lists what was gathered, /model switches,
// /clear (or `clear`, as in a shell) starts a new conversation: a local
// command, never a question to the model; `exit` and `quit` end it likewise.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Evidence } from '../indexer/evidence.js';
import { human, screenOf, type Screen, type Shown } from '../local/human.js';
import type { AskResult } from '../protocol/ask-events.js';
import { RpcCode, RpcError } from '../protocol/jsonrpc.js';
import { Methods, type ModelApi } from '../protocol/messages.js';
import { CHOOSE_MODEL, type AskSettings } from '../protocol/ask-settings.js';
import { AskView, askViaClient, clientAskSettings, DaemonStoppedError, evidenceList, type AskClient } from './ask.js';

export interface ChatOptions {
  model?: string;
  api?: ModelApi;
  out: Screen | NodeJS.WriteStream;
  err: Screen | NodeJS.WriteStream;
  /** Where the questions come from (default process.stdin). */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  env?: NodeJS.ProcessEnv;
  /** A root-relative path as printed here (from the current folder); default as is. */
  shown?: (rootPath: string) => string;
  /** A new daemon connection (starting a daemon), for when the daemon went away; without it such a question fails. */
  reconnect?: () => Promise<AskClient>;
}

const HELP = 'type a question; /evidence lists what was gathered, /model [M] shows or switches the model, /clear starts over, /quit (or Ctrl-D) ends; Ctrl-C cancels an answer';

/** Runs the conversation until /quit or end of input; returns the exit code (0, or 1 for a bad setting). */
export async function runChatCommand(first: AskClient, opts: ChatOptions): Promise<number> {
  let client = first;
  // Set when the daemon went away in the middle of an answer: the next question connects again first.
  let lost = false;
  const env = opts.env ?? process.env;
  const out = screenOf(opts.out, env);
  const err = screenOf(opts.err, env);
  const input = opts.input ?? process.stdin;
  let settings;
  try {
    settings = clientAskSettings(opts, env, (line) => err.line(human`evidex chat: ${line}`));
  } catch (e) { err.line(human`evidex chat: ${(e as Error).message}`); return 1; }
  let conversation = randomUUID();
  const gathered = new Map<string, Evidence>();
  const terminal = !!input.isTTY && !!err.isTTY;
  // readline draws the prompt and echoes what the user types: the user's own input, not outside text.
  const rl = createInterface({ input, output: err.readlineOutput, terminal, prompt: 'evidex> ' });
  // Input that ends (a pipe, Ctrl-D) closes readline while an answer may still run; the lines read before still
  // come, and prompting then throws on Node 24+ ("readline was closed"): a prompt after the close is not drawn.
  let inputClosed = false;
  rl.once('close', () => { inputClosed = true; });
  const prompt = (): void => { if (!inputClosed) rl.prompt(); };
  let current: AbortController | null = null;

  // Ctrl-C: cancel the answer in progress; at the prompt, a reminder of how to leave.
  const onInterrupt = (): void => {
    if (current) { current.abort(); return; }
    err.line(human`\n(Ctrl-D or /quit ends the chat)`);
    prompt();
  };
  rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt); // input that is not a terminal: the signal comes to the process

  err.line(human`evidex chat — ${HELP}`);
  prompt();
  try {
    for await (const raw of rl) {
      const line = raw.trim();
      if (line === '') { prompt(); continue; }
      if (['/quit', '/exit', 'quit', 'exit'].includes(line)) break;
      if (line === '/clear' || line === 'clear') {
        // A new conversation: the daemon keeps nothing of the old one for it, and nothing gathered is listed.
        conversation = randomUUID();
        gathered.clear();
        err.line(human`conversation cleared: the next question starts a new one`);
        prompt();
        continue;
      }
      if (line === '/help') { err.line(human`${HELP}`); prompt(); continue; }
      if (line === '/evidence') {
        if (gathered.size === 0) err.line(human`no evidence gathered yet`);
        else out.line(evidenceList([...gathered.values()], { nameMax: Infinity, shown: opts.shown }));
        prompt();
        continue;
      }
      if (line === '/model' || line.startsWith('/model ')) {
        const m = line.slice('/model'.length).trim();
        if (m) settings = { ...settings, model: m };
        // The daemon checks a model before its first turn: a name it cannot use is said at the next question.
        if (m) err.line(human`model: ${m} (checked when the next question is asked)`);
        else err.line(await modelLine(client, settings));
        prompt();
        continue;
      }
      if (line.startsWith('/')) { err.line(human`unknown command ${line.split(/\s/)[0]}; ${HELP}`); prompt(); continue; }

      const view = new AskView({ out, err, env, live: true, summary: { listHint: '/evidence lists them', shown: opts.shown } });
      const ac = new AbortController();
      current = ac;
      let result: AskResult | null = null;
      let started = false;
      const asked = settings;
      const ask = (): Promise<AskResult> => view.whileBuilding(client, askViaClient(client, line, asked, (e) => { started = true; view.event(e); }, ac.signal, { conversation }));
      // The conversation was the stopped daemon's: a new daemon starts a new one, as /clear does.
      const again = async (): Promise<void> => {
        const old = client;
        client = await opts.reconnect!();
        if (old !== first) await old.close();
        lost = false;
        conversation = randomUUID();
        gathered.clear();
        err.line(human`evidex chat: the daemon had stopped; this question starts a new conversation with a new one`);
      };
      try {
        if (lost && opts.reconnect) await again();
        try {
          result = await ask();
        } catch (e) {
          // Gone before this question began (stopped, or idle, since the last one): asked again of a new daemon.
          if (!(e instanceof DaemonStoppedError) || started || ac.signal.aborted || !opts.reconnect) throw e;
          await again();
          result = await ask();
        }
        result = inChatWords(result);
        view.finish(result);
      } catch (e) {
        view.stop();
        if (e instanceof DaemonStoppedError && opts.reconnect) {
          lost = true;
          err.line(human`evidex chat: the daemon stopped before the question was answered; ask again: the next question starts a daemon, in a new conversation`);
        } else err.line(ac.signal.aborted ? human`cancelled` : human`evidex chat: ${chatWords((e as Error).message)}`);
      } finally {
        current = null;
      }
      if (result?.stopped === 'answered') {
        for (const e of result.evidence) gathered.set(`${e.kind}\0${e.path}\0${e.start_line}\0${e.end_line}\0${e.name}`, e);
      }
      out.write(human`\n`);
      prompt();
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    rl.close();
    // The first connection is its caller's to close; one made here is closed here.
    if (client !== first) await client.close();
  }
  if (terminal) err.write(human`\n`); // Ctrl-D leaves the cursor after the prompt
  return 0;
}

/**
 * What `/model` says: the model the next question will use — chosen here
 * (--model, EVIDEX_MODEL, /model M), else the daemon's, which only it knows
 * (its own EVIDEX_MODEL, from when it started, else qwen3:8b): asked of it
 * (ask/model). A daemon older than that method is said to choose it.
 */
async function modelLine(client: AskClient, settings: AskSettings): Promise<Shown> {
  if (settings.model !== undefined) return human`model: ${settings.model}`;
  try {
    return human`model: ${(await client.request(Methods.askModel, settings)).model} (the daemon's default)`;
  } catch (e) {
    if (e instanceof RpcError && e.code === RpcCode.METHOD_NOT_FOUND) return human`model: the daemon's default (its EVIDEX_MODEL, else qwen3:8b)`;
    return human`evidex chat: ${chatWords((e as Error).message)}`;
  }
}

/** A daemon message as said in chat, where another model is chosen with /model. */
function chatWords(message: string): string {
  return message.split(CHOOSE_MODEL).join('/model');
}

function inChatWords(r: AskResult): AskResult {
  return {
    ...r,
    ...(r.message !== undefined ? { message: chatWords(r.message) } : {}),
    ...(r.error ? { error: { ...r.error, message: chatWords(r.error.message) } } : {}),
  };
}
