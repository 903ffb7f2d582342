// `evidex search QUERY`: search_code from the command line.
import { flag, needPositionals } from '../command.js';
import { notSearched } from '../left-out-note.js';
import { PAGE, SCOPE, pageArgs, toolCommand } from './tool-command.js';

export const command = toolCommand({
  tool: 'search_code',
  usage: 'evidex search QUERY [--limit N] [--offset N] [--case-sensitive] [--path-prefix P | --all]',
  summary: 'literal text search over paths and lines',
  details: 'QUERY is literal text, not a regex, matched case-insensitively unless --case-sensitive.\n'
    + 'Files whose path contains it come first (as path:1:), then one line per matching line.\n'
    + 'In a subfolder it looks there only, as git grep does, and says how many more matches the whole repository has.',
  examples: ['evidex search COLLECTION_NAME', 'evidex search "def main" --path-prefix src/', 'evidex search -- --no-deps        (-- ends the options)'],
  flags: {
    ...PAGE,
    'case-sensitive': flag.boolean('match case exactly'),
    ...SCOPE,
  },
  build: (p) => {
    needPositionals(p, 1, 'evidex search QUERY');
    return { query: p.positionals[0], ...pageArgs(p), case_sensitive: p.flags['case-sensitive'], path_prefix: p.flags['path-prefix'] };
  },
  format: (p) => ({ highlight: { text: p.positionals[0], caseSensitive: Boolean(p.flags['case-sensitive']) } }),
  // Files the index leaves out whose names hold the query: said in one line (names and reasons, never content).
  after: (_r, args, client) => notSearched(client, args),
});
