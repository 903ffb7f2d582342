// `evidex diff [PATH]`: read_git_diff from the command line.
import { flag, UsageError } from '../command.js';
import { PAGE, pageArgs, toolCommand } from './tool-command.js';

export const command = toolCommand({
  tool: 'read_git_diff',
  usage: 'evidex diff [PATH] [--staged] [--base REF] [--limit N] [--offset N]',
  summary: 'uncommitted changes, one item per hunk',
  details: 'Hunks of the working tree (or the index, --staged) against HEAD (or --base REF); line numbers are the new file\'s.\n'
    + 'PATH is relative to the current folder.',
  flags: {
    staged: flag.boolean('staged changes instead of the working tree'),
    base: flag.string('REF', 'diff against REF instead of HEAD'),
    ...PAGE,
  },
  build: (p, path) => {
    if (p.positionals.length > 1) throw new UsageError('usage: evidex diff [PATH] [--staged] [--base REF] [--limit N] [--offset N]');
    const file = p.positionals[0];
    return { path: file === undefined ? undefined : path(file), staged: p.flags.staged, base: p.flags.base, ...pageArgs(p) };
  },
});
