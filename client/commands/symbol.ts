// `evidex symbol NAME`: find_symbol from the command line.
import { SYMBOL_KINDS } from '../../indexer/query/limits.js';
import { flag, needPositionals } from '../command.js';
import { readOn } from './read-span.js';
import { callTool, PAGE, SCOPE, pageArgs, toolCommand } from './tool-command.js';

export const command = toolCommand({
  tool: 'find_symbol',
  usage: `evidex symbol NAME [--kind ${SYMBOL_KINDS.join('|')}] [--body] [--limit N] [--offset N] [--path-prefix P | --all]`,
  summary: 'find Python, TypeScript and JavaScript definitions by simple or qualified name',
  details: 'NAME is a simple name (run), a qualified one (Server.run, A.B.f) or, for Python, a module-qualified one (pkg.mod.Server.run).\n'
    + 'Kinds: class, function, method, variable; interface, type, enum and namespace come from TypeScript.\n'
    + 'One line per definition: path:start-end: kind name  signature; --body prints each definition whole.\n'
    + 'In a subfolder it looks there only, and says how many more the whole repository has.',
  examples: ['evidex symbol Settings', 'evidex symbol Settings.load --body', 'evidex symbol createServer --kind function'],
  flags: {
    kind: flag.choice('KIND', SYMBOL_KINDS, `only definitions of this kind: ${SYMBOL_KINDS.join(', ')}`),
    body: flag.boolean('print every definition whole instead of one line each'),
    ...PAGE,
    ...SCOPE,
  },
  build: (p) => {
    needPositionals(p, 1, 'evidex symbol NAME');
    return { name: p.positionals[0], kind: p.flags.kind, ...pageArgs(p), path_prefix: p.flags['path-prefix'] };
  },
  format: (p) => ({ body: Boolean(p.flags.body) }),
  // --body prints each definition whole: a body past the snippet cut is read on (read-span.ts); --json is the tool's answer.
  async call(client, args, p, _place, shownFrom) {
    const r = await callTool(client, 'find_symbol', args, shownFrom);
    if (!p.flags.body || p.flags.json) return r;
    const evidence = [];
    for (const e of r.evidence) evidence.push(await readOn(client, e));
    return { ...r, evidence };
  },
});
