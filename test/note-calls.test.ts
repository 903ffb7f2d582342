// The calls a note names, as calls (indexer/query/notes.ts: `note_calls`),
// and as the command line prints them (client/call-words.ts,
// client/commands/tool-command.ts formatNote): each call written where the
// note says, through words joined and listed, kept in place while the
// note's other paths are shown from a subfolder; and each printed as the
// command that makes it from where the command ran.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { callText, joinWorded, namedList, namedWords, notesShownFrom, refusalShownFrom, withNote, worded } from '../indexer/query/notes.js';
import { ToolError } from '../indexer/errors.js';
import { callWords, type CallPlace } from '../client/call-words.js';
import { formatNote } from '../client/commands/tool-command.js';
import { shownFrom } from '../local/shown-from.js';
import type { ToolCallParams, ToolResult } from '../indexer/query/schemas.js';

const importers = (module_name: string, path_prefix?: string): ToolCallParams => ({ name: 'find_importers', arguments: { module_name, ...(path_prefix ? { path_prefix } : {}) } });

/** Each call's words as its note writes them where it says. */
const written = (r: { text: string; calls: Array<{ at: number; length: number }> }): string[] => r.calls.map((c) => r.text.slice(c.at, c.at + c.length));

test('a call is written as the tool, its first argument (a query always quoted, another only with a blank or quote), then name value', () => {
  assert.is(callText(importers('src/a.ts')), 'find_importers src/a.ts');
  assert.is(callText(importers('pkg.exc', 'src/')), 'find_importers pkg.exc path_prefix "src/"');
  assert.is(callText(importers("my dir/it's.ts")), 'find_importers "my dir/it\'s.ts"');
  assert.is(callText({ name: 'search_code', arguments: { query: 'styles.css' } }), 'search_code "styles.css"');
  assert.is(callText({ name: 'find_symbol', arguments: { name: 'Hono' } }), 'find_symbol Hono');
});

test('words keep each call where it lands: in a template, joined, listed (past max not named)', () => {
  const one = worded`a.ts, which 2 import: ${importers('a.ts')}`;
  const two = worded`b.ts, which 1 imports: ${importers('b.ts')}`;
  const joined = worded`"x" resolves to ${joinWorded([one, two], '; ')}; and 3 more`;
  assert.is(joined.text, '"x" resolves to a.ts, which 2 import: find_importers a.ts; b.ts, which 1 imports: find_importers b.ts; and 3 more');
  assert.equal(written(joined), ['find_importers a.ts', 'find_importers b.ts']);
  const listed = namedWords([one, two, worded`c ${importers('c.ts')}`], 2);
  assert.is(listed.text, 'a.ts, which 2 import: find_importers a.ts, b.ts, which 1 imports: find_importers b.ts and 1 more');
  assert.equal(written(listed), ['find_importers a.ts', 'find_importers b.ts']);
  assert.is(namedList(['a', 'b', 'c'], 3), 'a, b and c');
  assert.is(namedList(['a'], 3), 'a');
});

test('a result\'s note_calls name their note; shown from a subfolder, the note\'s paths move and its calls stay as calls are written, where they land', () => {
  const note = { ...worded`"x" resolves to apps/a.ts, which 2 import: ${importers('apps/a.ts')} (in apps/)`, paths: ['apps/a.ts', 'apps/'] };
  const r = withNote(withNote({ notes: ['first'] } as Pick<ToolResult, 'notes' | 'notePaths' | 'note_calls' | 'left_out_folder'>, null), note);
  assert.equal(r.note_calls?.map((c) => [c.note, c.name, c.arguments]), [[1, 'find_importers', { module_name: 'apps/a.ts' }]]);
  const { notes, calls } = notesShownFrom(r.notes!, r.notePaths!, 'apps/', r.note_calls);
  assert.is(notes[1], '"x" resolves to a.ts, which 2 import: find_importers apps/a.ts (in .)');
  assert.equal(calls.map((c) => notes[c.note].slice(c.at, c.at + c.length)), ['find_importers apps/a.ts']);
  // Without a folder: as they are.
  assert.equal(notesShownFrom(r.notes!, r.notePaths!, undefined, r.note_calls), { notes: r.notes, calls: r.note_calls });
});

test('a refusal\'s calls go on the wire beside its code and message, and stay where they land when its paths are shown from a subfolder', () => {
  const why = worded`"apps/ui" is a folder; its index file: ${importers('apps/ui/index.ts')}; package "@a/ui" (apps/ui): ${importers('@a/ui')}`;
  const e = new ToolError('not_indexed', why.text, ['apps/ui'], why.calls);
  assert.equal(e.toJSON(), { code: 'not_indexed', message: why.text, calls: why.calls });
  assert.equal(new ToolError('not_indexed', 'no calls').toJSON(), { code: 'not_indexed', message: 'no calls' });
  const shown = refusalShownFrom(e.message, e.paths, 'apps/', why.calls);
  assert.is(shown.message, '"ui" is a folder; its index file: find_importers apps/ui/index.ts; package "@a/ui" (ui): find_importers @a/ui');
  assert.equal(written({ text: shown.message, calls: shown.calls }), ['find_importers apps/ui/index.ts', 'find_importers @a/ui']);
  assert.equal(shown.calls.map((c) => c.arguments), [{ module_name: 'apps/ui/index.ts' }, { module_name: '@a/ui' }]);
});

test('a refusal made one line keeps its calls on their words: a line break before and after a call (a folder name from the tree; a call writes one escaped)', () => {
  const folder = 'apps/\n  weird';
  const why = worded`"${folder}" is a folder:\n  ${importers('apps/ui/index.ts')}\n and ${importers(`${folder}/x.ts`)} then\n`;
  const e = new ToolError('not_indexed', why.text, [], why.calls);
  assert.not.match(e.message, /\n/);
  assert.equal(written({ text: e.message, calls: [...e.calls] }), ['find_importers apps/ui/index.ts', 'find_importers "apps/\\n  weird/x.ts"']);
});

/** A place in `here` of a root whose files are `files`. */
const placeIn = (here: string | null, files: readonly string[] = [], below: string | null = null): CallPlace & { below: string | null; root: { path: string } } => ({
  here, below, root: { path: '/r oot' },
  shown: (p) => (here !== null ? shownFrom(here, p) : below !== null ? `${below}${p}` : p),
  namesFile: (typed) => files.some((f) => (here !== null ? shownFrom(here, f) : below !== null ? `${below}${f}` : f) === typed),
});

test('a call as the command that makes it from where it ran: paths from there, the scope as the command says it, a path module typed as a path', () => {
  const at = placeIn('src/', ['src/a.ts']);
  assert.equal(callWords(importers('src/a.ts'), at), ['importers', 'a.ts', '--all']);
  assert.equal(callWords(importers('pkg.exc', 'src/'), at), ['importers', 'pkg.exc']);
  assert.equal(callWords(importers('pkg.exc', 'lib/'), at), ['importers', 'pkg.exc', '--path-prefix', '../lib/']);
  // A module name that is no file stays a name, wherever it is typed.
  assert.equal(callWords(importers('lib.a'), at), ['importers', 'lib.a', '--all']);
  assert.equal(callWords(importers('src/a.ts'), placeIn('', ['src/a.ts'])), ['importers', 'src/a.ts']);
  assert.equal(callWords({ name: 'search_code', arguments: { query: '-x', case_sensitive: true } }, placeIn('')), ['search', '--case-sensitive', '--', '-x']);
  assert.equal(callWords({ name: 'find_symbol', arguments: { name: 'A', kind: 'class' } }, placeIn(null)), ['symbol', 'A', '--kind', 'class']);
  assert.equal(callWords({ name: 'read_evidence', arguments: { path: 'src/a.ts', start_line: 3, end_line: 9 } }, at), ['read', 'a.ts:3-9']);
  assert.equal(callWords({ name: 'read_git_diff', arguments: { path: 'src/', staged: true, untracked: false } }, at), ['diff', '.', '--staged', '--tracked-only']);
});

test('a note printed: each call as a quoted command line (with --repo outside the root), the rest in the command line\'s words', () => {
  const text = 'see find_importers: find_importers "my dir/it\'s.ts", then search_code "a b" path_prefix "lib/"';
  const calls = [
    { note: 0, at: text.indexOf('find_importers "'), length: 'find_importers "my dir/it\'s.ts"'.length, ...importers("my dir/it's.ts") },
    { note: 0, at: text.indexOf('search_code'), length: 'search_code "a b" path_prefix "lib/"'.length, name: 'search_code' as const, arguments: { query: 'a b', path_prefix: 'lib/' } },
  ];
  const outside = placeIn(null, ["my dir/it's.ts"], 'r oot/');
  assert.is(formatNote(text, outside, calls).plain,
    `note: see evidex importers: evidex importers 'r oot/my dir/it'"'"'s.ts' --repo 'r oot', then evidex search 'a b' --path-prefix 'r oot/lib/' --repo 'r oot'`);
  // A call placed past the note's end (a daemon of another version) is left as the note writes it.
  assert.is(formatNote('x find_importers a', placeIn(''), [{ ...calls[0], at: 2, length: 99 }]).plain, 'note: x evidex importers a');
});

test.run();
