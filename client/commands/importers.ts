// `evidex importers MODULE`: find_importers from the command line.
import { needPositionals } from '../command.js';
import { PAGE, SCOPE, pageArgs, toolCommand } from './tool-command.js';

export const command = toolCommand({
  tool: 'find_importers',
  usage: 'evidex importers MODULE [--limit N] [--offset N] [--path-prefix P | --all]',
  summary: 'import statements that import a module (dotted name or repo path)',
  details: 'MODULE is a dotted name (pkg.mod) or the path of a Python file (mod.py), relative to the current folder.\n'
    + 'In a subfolder it shows the importers there only, and says how many more the whole repository has.\n\n'
    + 'examples:\n  evidex importers rag_common\n  evidex importers src/rag_common.py',
  flags: { ...PAGE, ...SCOPE },
  build: (p, place) => {
    needPositionals(p, 1, 'evidex importers MODULE');
    const m = p.positionals[0];
    // A file on disk is a path, taken from the current folder like every path; anything else is a module or package name.
    return { module_name: place.namesFile(m) ? place.toRoot(m) : m, ...pageArgs(p), path_prefix: p.flags['path-prefix'] };
  },
});
