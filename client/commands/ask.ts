// `evidex ask "QUESTION"`: one question to a local model (client/ask.ts).
import { flag, JSON_FLAG } from '../command.js';
import { stderr, stdout } from '../../local/human.js';
import { modelCommand } from './model-command.js';

export const command = modelCommand({
  usage: 'evidex ask "QUESTION" [--model M] [--api ollama|openai] [--evidence] [--json]',
  summary: 'ask a local model (Ollama, or an OpenAI-compatible server); it answers from evidex tools, citing path:line (exit status below)',
  details: 'After the answer, on stderr: each path the answer names, checked against the evidence\n'
    + 'the model was shown: ✔ backed, with the first cited line beside it; ✘ a path or line\n'
    + 'not in that evidence (a file that does not exist, too). Paths count in every form models\n'
    + 'write: path:12, path:12-14, "path at line 12", "path (line 12)", "lines 10-14 of path",\n'
    + '"line 12 in path", or a path alone. An answer that names code but cites no path, after\n'
    + 'tools ran, is marked "cites no evidence". Long lists are counted so the answer stays on\n'
    + 'screen; --evidence lists them.\n\n'
    + 'exit status: 0 answered, every citation backed; 4 a citation not backed; 5 cites no\n'
    + 'evidence; 3 stopped without a whole answer; 1 error; 130 cancelled.',
  examples: ['evidex ask "where is the collection name defined?"', 'evidex ask "what calls rerank?" --evidence', 'evidex ask "how is the index built?" --api openai --model qwen3-8b'],
  clientName: 'cli',
  positionals: 1,
  flags: { evidence: flag.boolean('list every citation and evidence item after the answer, however many'), ...JSON_FLAG },
  async load() {
    const { runAskCommand } = await import('../ask.js');
    return (client, p, place) => runAskCommand(client, p.positionals[0], {
      model: p.flags.model, api: p.flags.api, json: Boolean(p.flags.json), evidence: Boolean(p.flags.evidence), out: stdout(), err: stderr(), shown: (f) => place.shown(f),
    });
  },
});
