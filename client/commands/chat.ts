// `evidex chat`: a conversation with a local model (client/chat.ts).
import { stderr, stdout } from '../../local/human.js';
import { modelCommand } from './model-command.js';

export const command = modelCommand({
  usage: 'evidex chat [--model M]',
  summary: 'a conversation with a local model: follow-up questions share the evidence (/evidence, /model M, /clear, /quit)',
  clientName: 'chat',
  positionals: 0,
  flags: {},
  async load() {
    const { runChatCommand } = await import('../chat.js');
    return (client, p) => runChatCommand(client, { model: p.flags.model, out: stdout(), err: stderr() });
  },
});
