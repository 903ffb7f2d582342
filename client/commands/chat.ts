// `evidex chat`: a conversation with a local model (client/chat.ts).
import { stderr, stdout } from '../../local/human.js';
import { modelCommand } from './model-command.js';

export const command = modelCommand({
  usage: 'evidex chat [--model M] [--api ollama|openai]',
  summary: 'a conversation with a local model: follow-up questions share the evidence (/evidence, /model M, /clear, /quit)',
  examples: ['evidex chat', 'evidex chat --model qwen3:14b', 'evidex chat --api openai --model qwen3-8b'],
  clientName: 'chat',
  positionals: 0,
  // `evidex chat "where is X?"`: a question on the command line is what ask is for.
  wrongArguments: 'to ask one question from the command line: evidex ask "QUESTION"',
  flags: {},
  async load() {
    const { runChatCommand } = await import('../chat.js');
    return (client, p, place, reconnect) => runChatCommand(client, {
      model: p.flags.model, api: p.flags.api, out: stdout(), err: stderr(), shown: (f) => place.shown(f), reconnect,
    });
  },
});
