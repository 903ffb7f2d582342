// `evidex tools`: the allowlist and its argument schemas, from the schemas themselves.
import { human, stdout } from '../../local/human.js';
import { defineCommand, HELP, JSON_FLAG, needPositionals, REPO } from '../command.js';

export const command = defineCommand({
  usage: 'evidex tools [--json]',
  summary: 'the allowlist: the five read-only tools and their argument schemas',
  examples: ['evidex tools', 'evidex tools --json'],
  // --repo is accepted (and unused) so every command takes the same common flags.
  flags: { ...REPO, ...JSON_FLAG, ...HELP },
  async run(p) {
    needPositionals(p, 0, 'evidex tools [--json]');
    const { toolDescriptors } = await import('../../indexer/query/schemas.js');
    const tools = toolDescriptors();
    const out = stdout();
    if (p.flags.json) {
      out.json({ tools });
      return 0;
    }
    for (const t of tools) {
      out.line(human`${t.name}\n  ${t.description}`);
      const props = (t.inputSchema.properties ?? {}) as Record<string, { type?: string; description?: string }>;
      const required = new Set((t.inputSchema.required ?? []) as string[]);
      for (const [k, v] of Object.entries(props)) {
        out.line(human`    ${k}${required.has(k) ? '' : '?'} (${v.type ?? 'any'}): ${v.description ?? ''}`);
      }
    }
    return 0;
  },
});
