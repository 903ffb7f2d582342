// `evidex eval FILE`: an evaluation set run against a model (client/eval.ts).
import { flag, JSON_FLAG } from '../command.js';
import { stderr, stdout } from '../../local/human.js';
import { modelCommand } from './model-command.js';

export const command = modelCommand({
  usage: 'evidex eval FILE [--model M] [--api ollama|openai] [--repeat N] [--json]',
  summary: 'run an evaluation set (JSONL cases) against a model and print pass/fail per case',
  examples: ['evidex eval cases.jsonl', 'evidex eval cases.jsonl --model qwen3:14b --repeat 3 --json'],
  clientName: 'eval',
  positionals: 1,
  flags: { repeat: flag.int('run every case N times and report its pass rate (default 1)', { value: 'N' }), ...JSON_FLAG },
  async load() {
    const { runEvalCommand } = await import('../eval.js');
    return (client, p) => runEvalCommand(client, p.positionals[0], {
      model: p.flags.model, api: p.flags.api, json: Boolean(p.flags.json), out: stdout(), err: stderr(),
      ...(p.flags.repeat !== undefined ? { repeat: p.flags.repeat } : {}),
    });
  },
});
