// `evidex symbol NAME`: find_symbol from the command line.
import { flag, needPositionals } from '../command.js';
import { PAGE, SCOPE, pageArgs, toolCommand } from './tool-command.js';

export const command = toolCommand({
  tool: 'find_symbol',
  usage: 'evidex symbol NAME [--kind class|function|method|variable] [--body] [--limit N] [--offset N] [--path-prefix P | --all]',
  summary: 'find Python definitions by simple or qualified name',
  details: 'NAME is a simple name (run), a qualified one (Server.run) or a module-qualified one (pkg.mod.Server.run).\n'
    + 'One line per definition: path:start-end: kind name  signature; --body prints each definition whole.\n'
    + 'In a subfolder it looks there only, and says how many more the whole repository has.\n\n'
    + 'examples:\n  evidex symbol Settings\n  evidex symbol Settings.load --body',
  flags: {
    kind: flag.choice('KIND', ['class', 'function', 'method', 'variable'], 'class, function, method or variable'),
    body: flag.boolean('print every definition whole instead of one line each'),
    ...PAGE,
    ...SCOPE,
  },
  build: (p) => {
    needPositionals(p, 1, 'evidex symbol NAME');
    return { name: p.positionals[0], kind: p.flags.kind, ...pageArgs(p), path_prefix: p.flags['path-prefix'] };
  },
  format: (p) => ({ body: Boolean(p.flags.body) }),
});
