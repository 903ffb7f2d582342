// What `ask`, `chat` and `eval` share: --model first among their flags, and a
// run over a daemon connection that names itself after the command, with the
// command's code (client/ask.ts, chat.ts, eval.ts) loaded before connecting.
import {
  defineCommand, flag, HELP, needPositionals, REPO, repoOf, withDaemon, type Command, type FlagSpecs, type Parsed,
} from '../command.js';
import type { Client } from '../connection.js';

const MODEL = { model: flag.string('M', 'Ollama model (default $EVIDEX_MODEL, else qwen3:8b)') };

type ModelFlags<E extends FlagSpecs> = typeof MODEL & E & typeof REPO & typeof HELP;

interface ModelCommandSpec<E extends FlagSpecs> {
  usage: string;
  summary: string;
  /** More help, after the flags (`evidex help ask`). */
  details?: string;
  /** The X-Evidex-Client name the daemon's log and audit show. */
  clientName: string;
  positionals: number;
  /** The command's flags besides --model, --repo and --help. */
  flags: E;
  /** Loads the command's code; the function it gives runs over the connection. */
  load(): Promise<(client: Client, p: Parsed<ModelFlags<E>>) => Promise<number>>;
}

export function modelCommand<E extends FlagSpecs>(s: ModelCommandSpec<E>): Command<ModelFlags<E>> {
  return defineCommand({
    usage: s.usage,
    summary: s.summary,
    details: s.details,
    flags: { ...MODEL, ...s.flags, ...REPO, ...HELP },
    async run(p) {
      needPositionals(p, s.positionals, s.usage);
      const run = await s.load();
      return withDaemon(await repoOf(p), p, (client) => run(client, p), s.clientName);
    },
  });
}
