// `evidex importers MODULE`: find_importers from the command line.
import { needPositionals } from '../command.js';
import { PAGE, PATH_PREFIX, pageArgs, toolCommand } from './tool-command.js';

export const command = toolCommand({
  tool: 'find_importers',
  usage: 'evidex importers MODULE [--limit N] [--offset N] [--path-prefix P]',
  summary: 'import statements that import a module (dotted name or repo path)',
  details: 'MODULE is a dotted name (pkg.mod) or a repository path of a Python file (src/pkg/mod.py).\n\n'
    + 'examples:\n  evidex importers rag_common\n  evidex importers src/rag_common.py',
  flags: { ...PAGE, ...PATH_PREFIX },
  build: (p) => {
    needPositionals(p, 1, 'evidex importers MODULE');
    return { module_name: p.positionals[0], ...pageArgs(p), path_prefix: p.flags['path-prefix'] };
  },
});
