// What `ask`, `chat` and `eval` share: --model and --api first among their flags, and a
// run over a daemon connection that names itself after the command, with the
// command's code (client/ask.ts, chat.ts, eval.ts) loaded before connecting.
import {
  connectCommand, defineCommand, flag, HELP, needPositionals, REPO, UsageError, withDaemon, type Command, type FlagSpecs, type Parsed,
} from '../command.js';
import { placeOf, type Place } from '../paths.js';
import type { Client } from '../connection.js';
import { MODEL_APIS } from '../../protocol/messages.js';

const MODEL = {
  model: flag.string('M', 'the model (default $EVIDEX_MODEL, else qwen3:8b)'),
  api: flag.choice('API', MODEL_APIS, 'ollama (Ollama\'s own API) or openai (an OpenAI-compatible server at $EVIDEX_API_BASE: llama-server, LM Studio, vLLM, …); default $EVIDEX_API, else ollama'),
};

/** Where the model is, for --help (client/help.ts lays it out): the two APIs and the variables that name a server (docs/ask.md has the rest). */
const SERVERS = [
  'The model server is Ollama at OLLAMA_HOST (default http://127.0.0.1:11434), or with --api openai (EVIDEX_API=openai) '
    + 'an OpenAI-compatible server at EVIDEX_API_BASE, its base URL ending in /v1 (default http://127.0.0.1:8080/v1, llama-server\'s), '
    + 'with EVIDEX_API_KEY if it wants a key (sent to that server only). An OLLAMA_HOST ending in /v1 is taken as an OpenAI-compatible server, and said once.',
  '',
  'Start the server with tool calling on: llama-server --jinja; vllm serve --enable-auto-tool-choice --tool-call-parser P; '
    + 'in LM Studio and Jan, a model that supports tools. The window is the server\'s own (set when it loads the model), '
    + 'at most EVIDEX_NUM_CTX (default 8192); evidex fits every prompt to it.',
  '',
  'Other settings: EVIDEX_MODEL, EVIDEX_ASK_MAX_STEPS, EVIDEX_ASK_TIMEOUT_S, EVIDEX_THINK (docs/ask.md).',
].join('\n');

type ModelFlags<E extends FlagSpecs> = typeof MODEL & E & typeof REPO & typeof HELP;

interface ModelCommandSpec<E extends FlagSpecs> {
  usage: string;
  summary: string;
  /** What --help says before the model server's settings (SERVERS), shared by every model command. */
  details?: string;
  examples: readonly string[];
  /** The X-Evidex-Client name the daemon's log and audit show. */
  clientName: string;
  positionals: number;
  /** Said when the arguments are not `positionals` in number: what the caller may have meant instead. */
  wrongArguments?: string;
  /** The command's flags besides --model, --repo and --help. */
  flags: E;
  /** Loads the command's code; the function it gives runs over the connection (`reconnect`: a new one, made the same way, for when the daemon went away). */
  load(): Promise<(client: Client, p: Parsed<ModelFlags<E>>, place: Place, reconnect: () => Promise<Client>) => Promise<number>>;
}

export function modelCommand<E extends FlagSpecs>(s: ModelCommandSpec<E>): Command<ModelFlags<E>> {
  return defineCommand({
    usage: s.usage,
    summary: s.summary,
    details: s.details ? `${s.details}\n\n${SERVERS}` : SERVERS,
    examples: s.examples,
    flags: { ...MODEL, ...s.flags, ...REPO, ...HELP },
    async run(p) {
      needPositionals(p, s.positionals, s.usage, s.wrongArguments);
      // An empty question (or file name) is the caller's slip, refused here as search '' is: exit 2, not a failed question.
      if (p.positionals.some((a) => a.trim() === '')) throw new UsageError(`an empty argument; usage: ${s.usage}`);
      if (p.flags.model?.trim() === '') throw new UsageError('--model is empty; name a model, or leave --model out for the default (EVIDEX_MODEL, else qwen3:8b)');
      const run = await s.load();
      const place = await placeOf(p);
      return withDaemon(place.root, p, (client) => run(client, p, place, () => connectCommand(place.root, p, s.clientName)), s.clientName);
    },
  });
}
