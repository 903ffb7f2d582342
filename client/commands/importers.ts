// `evidex importers MODULE`: find_importers from the command line.
import { flag, needPositionals } from '../command.js';
import { PAGE, PATH_PREFIX, pageArgs, toolCommand } from './tool-command.js';

export const command = toolCommand({
  tool: 'find_importers',
  usage: 'evidex importers MODULE [--via-reexports] [--limit N] [--offset N] [--path-prefix P]',
  summary: 'import statements that import a module (dotted name, package name or repo path)',
  details: 'MODULE is a Python dotted name (pkg.mod), a package name or subpath (react, @org/ui, lodash/fp)\n'
    + 'or a repository path of a Python, TypeScript or JavaScript file (src/pkg/mod.py, src/lib/log.ts).\n'
    + 'TS/JS imports count as the TypeScript compiler resolves them (tsconfig paths, workspace packages, index files).\n'
    + 'With --via-reexports, statements importing a file that re-exports MODULE (a barrel) count too; such a line says via which files.\n\n'
    + 'examples:\n  evidex importers rag_common\n  evidex importers src/rag_common.py\n  evidex importers src/lib/log.ts --via-reexports\n  evidex importers @org/ui',
  flags: { 'via-reexports': flag.boolean('also statements importing a file that re-exports MODULE (export ... from chains)'), ...PAGE, ...PATH_PREFIX },
  build: (p) => {
    needPositionals(p, 1, 'evidex importers MODULE');
    return { module_name: p.positionals[0], via_reexports: p.flags['via-reexports'], ...pageArgs(p), path_prefix: p.flags['path-prefix'] };
  },
});
