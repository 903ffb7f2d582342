// `evidex call TOOL 'JSON_ARGS'`: one tool call as given, for scripts: the
// tool's JSON answer on stdout, or {"error": {code, message}} (cli.ts prints
// errors of `call` that way).
import { stdout } from '../../local/human.js';
import { Methods } from '../../protocol/messages.js';
import { defineCommand, HELP, needPositionals, REPO, repoOf, withDaemon } from '../command.js';
import { Refusal } from '../errors.js';

const USAGE = "evidex call TOOL 'JSON_ARGS' [--repo DIR]";

export const command = defineCommand({
  usage: USAGE,
  summary: 'run one tool; JSON result on stdout; exit 0 ok, 2 refused or tool error, 1 anything else',
  details: 'The arguments go to the tool as given: paths in them are relative to the repository root.\n'
    + 'A refusal prints {"error": {"code": "...", "message": "..."}}.',
  examples: ["evidex call find_symbol '{\"name\": \"Settings\", \"kind\": \"class\"}'", "evidex call read_evidence '{\"path\": \"src/app.py\", \"start_line\": 120}'"],
  flags: { ...REPO, ...HELP },
  async run(p) {
    needPositionals(p, 2, USAGE);
    const [name, raw] = p.positionals;
    let args: unknown;
    try {
      args = JSON.parse(raw);
    } catch (e) {
      throw new Refusal('invalid_arguments', `JSON_ARGS is not valid JSON: ${(e as Error).message}`);
    }
    const { whileBuilding } = await import('../build-wait.js');
    const r = await withDaemon(await repoOf(p), p, (client) => whileBuilding(client, client.request(Methods.toolsCall, { name, arguments: args })));
    stdout().json({ evidence: r.evidence, total: r.total });
    return 0;
  },
});
