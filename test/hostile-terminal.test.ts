// A hostile repository in a real terminal (issue 30, point 1): every command
// that prints repository text, run in a pseudo-terminal (`script`, so stdout
// and stderr are a terminal with colours on, as a person has them) against a
// real daemon over a real git repository whose code lines, file names and root
// folder name hold each sequence of the issue, and against the fake Ollama
// scripting a model that copies them into its answer, split across streamed
// pieces. Every byte written to the terminal is checked: nothing but evidex's
// own colours and line handling, each sequence shown in its escaped form, and
// a file name that holds a line break printed on one line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeOllama, call } from './fake-ollama/server.js';
import { startDaemon, stopDaemon, waitFor, type TestDaemon } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import {
  escaped, escapedPath, EVIL_SEQUENCES, hasScript, hostileRepo, inPty, READLINE, strayControls, type EvilName, type HostileRepo, type PtyRun,
} from './helpers/hostile.js';
import { TmuxSession } from './helpers/terminal.js';

const ALL = Object.keys(EVIL_SEQUENCES) as EvilName[];
/** A root folder whose own name carries sequences and a line break (`daemon status`, `list`, `index` print it). */
const ROOT_NAME = `hostile-${EVIL_SEQUENCES.title}-${EVIL_SEQUENCES.c1csi}-${EVIL_SEQUENCES.rlo}\nroot`;

/** Without util-linux `script` there is no pseudo-terminal to run in: the tests are registered as skipped, not passed. */
const ptyTest = hasScript ? test : test.skip;
const hasTmux = spawnSync('tmux', ['-V']).status === 0;

let repo: HostileRepo;
let f: FakeOllama;
let d: TestDaemon;

test.before(async () => {
  repo = hostileRepo(ROOT_NAME);
  f = await new FakeOllama([{ name: 'qwen3:8b', capabilities: ['completion', 'tools'], contextLength: 32768 }]).start();
  d = await startDaemon(repo.root, { env: { OLLAMA_HOST: f.url } });
});
test.after(async () => {
  if (d) await stopDaemon(d);
  await f?.stop();
  cleanupTemp();
});

/** The output as a colourless terminal would show it: evidex's colours and carriage returns taken out. */
const plainOf = (raw: string): string => raw.replace(/\x1b\[(?:0|1|2|7|27|31|32|33|35|36|1;31)m/g, '').replace(/\r\x1b\[2K|\x1b\[K|\r/g, '');

/** The checks every run gets: no stray control, each sequence named shown escaped, hostile names on one line. */
function assertInert(what: string, run: PtyRun, opts: { code?: number; sequences?: readonly EvilName[]; names?: readonly EvilName[]; forged?: boolean; allow?: RegExp }): string {
  const plain = plainOf(run.raw);
  assert.is(run.code, opts.code ?? 0, `${what}: exit ${run.code}\n${plain}`);
  assert.equal(strayControls(run.raw, opts.allow), [], `${what}: control sequences reached the terminal`);
  for (const n of opts.sequences ?? []) assert.ok(plain.includes(escaped(EVIL_SEQUENCES[n])), `${what}: ${n} shown as ${escaped(EVIL_SEQUENCES[n])}\n${plain}`);
  for (const n of opts.names ?? []) assert.ok(plain.includes(escapedPath(repo.names[n])), `${what}: the file named with ${n} shown as ${escapedPath(repo.names[n])}\n${plain}`);
  if (opts.forged) {
    // The name that holds "\n" is one shown name, never a line of its own that looks like a result.
    assert.ok(plain.includes(`${escapedPath(repo.forged)}:`), `${what}: ${escapedPath(repo.forged)}\n${plain}`);
    assert.not.ok(plain.split('\n').some((l) => l.startsWith('real.py')), `${what}: a forged line`);
  }
  return plain;
}

const evidex = (args: string[], opts: Parameters<typeof inPty>[2] & { env?: NodeJS.ProcessEnv } = {}): Promise<PtyRun> =>
  inPty([...args, '--repo', repo.root], { ...d.env, ...opts.env }, opts);
/** A window that holds every item found, so every hostile name reaches the evidence list. */
const WIDE = { EVIDEX_NUM_CTX: '32768' };

ptyTest('search: code lines and file names with every sequence', async () => {
  const plain = assertInert('search', await evidex(['search', 'MARK', '--limit', '200']), { sequences: ALL, names: ALL, forged: true });
  assert.match(plain, `pkg/evil.py:1: import evil_target  # MARK import ${escaped(EVIL_SEQUENCES.osc52)}`);
});

ptyTest('read: a whole file, and a line asked for by number', async () => {
  assertInert('read', await evidex(['read', 'pkg/evil.py']), { sequences: ALL });
  const one = assertInert('read :N', await evidex(['read', `${repo.names.osc52}:1`]), { names: ['osc52'] });
  assert.match(one, `${escapedPath(repo.names.osc52)}:1: import evil_target  # MARK in a hostile name`);
});

ptyTest('symbol: the one-line form and --body', async () => {
  const line = assertInert('symbol', await evidex(['symbol', 'evil_fn']), { sequences: ['title', 'clear'] });
  assert.match(line, /pkg\/evil\.py:\d+-\d+: function evil_fn  def evil_fn\(\):  # MARK def /);
  assertInert('symbol --body', await evidex(['symbol', 'evil_fn', '--body']), { sequences: ['title', 'clear', 'rlo'] });
});

ptyTest('importers: import lines in files whose names hold the sequences', async () => {
  assertInert('importers', await evidex(['importers', 'evil_target', '--limit', '200']), { sequences: ['osc52'], names: ALL, forged: true });
});

ptyTest('diff: hunks holding the sequences, in a file whose name holds a line break', async () => {
  const plain = assertInert('diff', await evidex(['diff', '--limit', '200']), { sequences: ALL, forged: true });
  assert.match(plain, `${escapedPath(repo.forged)}:1: diff`);
});

/** An answer that copies every sequence, each cut in two across streamed pieces, citing a hostile name. */
function hostileAnswer(): Array<{ content: string }> {
  const chunks: Array<{ content: string }> = [{ content: 'The file says: ' }];
  for (const n of ALL) {
    const s = EVIL_SEQUENCES[n];
    const cut = Math.max(1, Math.floor(s.length / 2));
    chunks.push({ content: `${n} ${s.slice(0, cut)}` }, { content: `${s.slice(cut)}; ` });
  }
  chunks.push({ content: `see ${repo.names.osc52}:1 and pkg/evil.py:3.\n` });
  return chunks;
}
/** A model's call whose arguments hold sequences too (progress and attempts show them). */
const hostileCall = () => call('search_code', { query: `MARK${EVIL_SEQUENCES.c1csi}${EVIL_SEQUENCES.rlo}`, limit: 200 });

ptyTest('ask: the streamed answer, the tool call, citations and the evidence list', async () => {
  f.script(
    { chunks: [{ tool_calls: [call('search_code', { query: 'MARK', limit: 200 })] }] },
    { chunks: [{ tool_calls: [hostileCall()] }] },
    { chunks: hostileAnswer(), delayMs: 5 },
  );
  // --evidence: the whole list, every hostile name in it (without it, a list this long is only counted).
  const plain = assertInert('ask', await evidex(['ask', 'what is in pkg/evil.py?', '--evidence'], { env: WIDE }), { code: 0, sequences: ALL, names: ALL, forged: true });
  // The answer cites the hostile file name too: matched, backed, and shown escaped with the line it cites.
  assert.match(plain, `citations: 2 of 2 backed by the evidence`);
  assert.match(plain, `  ✔ ${escapedPath(repo.names.osc52)}:1  `);
  assert.match(plain, '✔ pkg/evil.py:3');
  assert.match(plain, `  ${escapedPath(repo.names.osc52)}:1  path_match  ${escaped(repo.names.osc52)}`);
  assert.match(plain, `→ search_code {"query":"MARK${escaped(EVIL_SEQUENCES.c1csi)}${escaped(EVIL_SEQUENCES.rlo)}","limit":200}`);
});

ptyTest('chat: the answer, and /evidence listing hostile names', async () => {
  f.script(
    { chunks: [{ tool_calls: [call('search_code', { query: 'MARK', limit: 200 })] }] },
    { chunks: hostileAnswer(), delayMs: 5 },
  );
  const run = await evidex(['chat'], { input: ['what is in pkg/evil.py?', '/evidence', '/quit'], prompt: 'evidex> ', env: WIDE });
  // readline draws its prompt with cursor moves of its own; the hostile ones are checked for by name below.
  const plain = assertInert('chat', run, { code: 0, sequences: ALL, names: ALL, forged: true, allow: READLINE });
  for (const s of [EVIL_SEQUENCES.clear, EVIL_SEQUENCES.cursor, '\x1b]', '\x1b[8m']) assert.not.ok(run.raw.includes(s), JSON.stringify(s));
  assert.match(plain, `\n${escapedPath(repo.names.link)}:1  path_match  ${escaped(repo.names.link)}\n`);
});

ptyTest('eval: progress and the report show a model\'s hostile arguments escaped', async () => {
  const file = join(tempDir('eval'), 'cases.jsonl');
  writeFileSync(file, `${JSON.stringify({ id: 'evil', kind: 'tool', question: `q ${EVIL_SEQUENCES.osc52}`, expect: { tool: 'search_code' } })}\n`);
  f.script({ chunks: [{ tool_calls: [hostileCall()] }] }, { chunks: hostileAnswer() });
  const plain = assertInert('eval', await evidex(['eval', file]), { code: 0, sequences: ['c1csi', 'rlo', 'osc52'] });
  assert.match(plain, 'PASS  evil  [tool]');
});

ptyTest('daemon status, daemon list and index print a root whose name holds sequences and a line break as one name', async () => {
  const shownRoot = escapedPath(repo.root);
  const status = assertInert('daemon status', await evidex(['daemon', 'status']), {});
  assert.match(status, `root         ${shownRoot}\n`);
  const list = assertInert('daemon list', await inPty(['daemon', 'list'], d.env), {});
  assert.match(list, new RegExp(`\\n${shownRoot.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')} +${d.info.pid} `));
  const index = assertInert('index', await evidex(['index']), {});
  assert.match(index, `indexed ${shownRoot} (daemon)`);
});

(hasScript && hasTmux ? test : test.skip)('the screen a person sees (tmux): the title is not set, nothing above is cleared, every result line is there', async () => {
  const tmux = new TmuxSession(`hostile-client-${process.pid}`);
  tmux.start(['search', 'MARK', '--limit', '200', '--repo', repo.root], { ...d.env, TERM: 'xterm-256color' } as Record<string, string>);
  try {
    const screen = await waitFor('the command to end', () => { const s = tmux.screen({ scrollback: 200 }); return /\[exit \d+\]/.test(s) ? s : null; }, 30_000, 100);
    assert.match(screen, '[exit 0]');
    assert.match(screen, `pkg/evil.py:1: import evil_target  # MARK import ${escaped(EVIL_SEQUENCES.osc52)}`);
    assert.match(screen, `${escapedPath(repo.forged)}:1:`);
    // The pane's title, which OSC 0 would have set.
    assert.not.match(tmux.title(), 'owned');
  } finally {
    tmux.kill();
  }
});

test.run();
