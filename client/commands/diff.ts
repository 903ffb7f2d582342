// `evidex diff [PATH]`: read_git_diff from the command line.
import { human, path } from '../../local/human.js';
import { workTreeOf } from '../../local/root.js';
import { flag, UsageError } from '../command.js';
import { Refusal } from '../errors.js';
import { PAGE, pageArgs, toolCommand } from './tool-command.js';
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { existsSync } = process.getBuiltinModule('node:fs');
const { join } = process.getBuiltinModule('node:path');

export const command = toolCommand({
  tool: 'read_git_diff',
  usage: 'evidex diff [PATH] [--staged] [--base REF] [--tracked-only] [--limit N] [--offset N]',
  summary: 'uncommitted changes, one item per hunk',
  details: 'Hunks of the working tree (or the index, --staged) against HEAD (or --base REF); line numbers are the new file\'s.\n'
    + 'Untracked files that are not ignored show as new files (not with --staged; --tracked-only leaves them out).\n'
    + 'PATH is relative to the current folder.',
  examples: ['evidex diff', 'evidex diff src/app.py --staged', 'evidex diff --base main --tracked-only'],
  flags: {
    staged: flag.boolean('staged changes instead of the working tree'),
    base: flag.string('REF', 'diff against REF instead of HEAD'),
    'tracked-only': flag.boolean('leave out untracked files'),
    ...PAGE,
  },
  build: (p, place) => {
    if (p.positionals.length > 1) throw new UsageError('usage: evidex diff [PATH] [--staged] [--base REF] [--tracked-only] [--limit N] [--offset N]');
    const file = p.positionals[0];
    // The root itself (`diff .` there) is the whole repository, as no PATH is.
    return { path: file === undefined ? undefined : place.toRoot(file) || undefined, staged: p.flags.staged, base: p.flags.base, untracked: p.flags['tracked-only'] ? false : undefined, ...pageArgs(p) };
  },
  // git's changes need git: refused before a daemon is started to index a folder it would then refuse.
  async before(place) {
    if (await workTreeOf(place.root.path) !== null) return;
    throw new Refusal('not_a_git_repo', human`${path(place.root.path)} is not inside a git work tree: evidex diff shows git's uncommitted changes`.plain);
  },
  // No change under a PATH that is not there is most likely a typo: said, so "0 of 0 shown" is not taken for "unchanged".
  async after(r, args, _client, place) {
    const asked = args.path;
    if (r.total > 0 || typeof asked !== 'string' || existsSync(join(place.root.path, asked))) return null;
    return human`${path(place.shown(asked))}: no such file or folder in the working tree, and no change to one`;
  },
});
