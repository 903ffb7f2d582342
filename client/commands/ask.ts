// `evidex ask "QUESTION"`: one question to a local model (client/ask.ts).
import { JSON_FLAG } from '../command.js';
import { stderr, stdout } from '../../local/human.js';
import { modelCommand } from './model-command.js';

export const command = modelCommand({
  usage: 'evidex ask "QUESTION" [--model M] [--json]',
  summary: 'ask a local Ollama model; it answers from evidex tools, citing path:line (exit 0 backed, 4 unbacked citation, 3 no answer)',
  clientName: 'cli',
  positionals: 1,
  flags: JSON_FLAG,
  async load() {
    const { runAskCommand } = await import('../ask.js');
    return (client, p) => runAskCommand(client, p.positionals[0], { model: p.flags.model, json: Boolean(p.flags.json), out: stdout(), err: stderr() });
  },
});
