// `evidex call TOOL 'JSON_ARGS'`: one tool call as given, for scripts: the
// tool's JSON answer on stdout, or {"error": {code, message}} (cli.ts prints
// errors of `call` that way). stdout holds what the contract pins,
// {evidence, total}, and nothing more; the index generation that answered
// goes to stderr, as the other commands' footers do.
import { stderr, stdout } from '../../local/human.js';
import { RpcError } from '../../protocol/jsonrpc.js';
import { Methods, TOOL_ERROR } from '../../protocol/messages.js';
import { defineCommand, HELP, needPositionals, REPO, withDaemon } from '../command.js';
import { Refusal } from '../errors.js';
import { placeOf, type Place } from '../paths.js';

const USAGE = "evidex call TOOL 'JSON_ARGS' [--repo DIR]";

export const command = defineCommand({
  usage: USAGE,
  summary: 'run one tool; JSON result on stdout; exit 0 ok, 2 refused or tool error, 1 anything else',
  details: 'The arguments go to the tool as given: paths in them are relative to the repository root.\n'
    + 'A refusal prints {"error": {"code": "...", "message": "..."}}.\n'
    + 'On stderr: the index generation that answered (and whether it was still catching up), as other commands\' footers say it.',
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
    const place = await placeOf(p);
    const r = await withDaemon(place.root, p, (client) => whileBuilding(client, client.request(Methods.toolsCall, { name, arguments: args })))
      .catch((e: unknown) => { throw pathFromHere(e, place, args); });
    stdout().json({ evidence: r.evidence, total: r.total });
    stderr().line((await import('../catching-up-note.js')).answeredFrom(r));
    return 0;
  },
});

/**
 * A `path` refused as not in the index that names a file from the current
 * folder (`rag_common.py` typed in src/): every other command takes it so,
 * `call` passes it as given, so the refusal says what the tool takes instead.
 */
function pathFromHere(e: unknown, place: Place, args: unknown): unknown {
  const path = args !== null && typeof args === 'object' ? (args as { path?: unknown }).path : undefined;
  if (!(e instanceof RpcError) || e.code !== TOOL_ERROR || typeof path !== 'string' || !place.here) return e;
  const d = e.data as { code?: unknown; message?: unknown } | undefined;
  if (d?.code !== 'not_indexed' || !place.namesFile(path)) return e;
  const fromRoot = place.fileToRoot(path);
  return new Refusal('not_indexed', `${typeof d.message === 'string' ? d.message : e.message}; evidex call takes paths from the repository root: ${JSON.stringify(path)} from here is ${JSON.stringify(fromRoot)}`);
}
