// Which TS/JS import statements resolved nowhere, and why (issue 24 follow-up):
// the daemon's `index/unresolved` over a real WebSocket on fixtures/ts-monorepo,
// checked against the TypeScript oracle (what the compiler resolves to no file,
// what it takes as a package) and pinned to the fixture's five missing
// statements; its paging, its refusals and its currency under the watcher;
// and `evidex index --unresolved` as a person runs it, in-process and through
// a daemon, from the root and from a subfolder, with hostile text in a line.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, RpcError, type Client } from '../client/connection.js';
import { Methods, type UnresolvedImports } from '../protocol/messages.js';
import { specExtension } from '../indexer/query/unresolved.js';
import { runTsOracle } from './oracle/ts-oracle.js';
import { evidex } from './helpers/cli.js';
import { startDaemon, stopDaemon, waitFor, waitWatcherReady, type TestDaemon } from './helpers/daemon.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';
import { fixtureRepo, indexedFiles } from './helpers/ts-corpus.js';

/** The fixture's statements that reach no file, as `path:line: text` (the compiler's view: test/ts-oracle.test.ts pins two of them). */
const FIVE_MISSING = [
  "apps/legacy/lib/esm.mjs:7: const pkg = require('../package.json');",
  "apps/web/src/main.tsx:10: import './styles.css';",
  "apps/web/src/main.tsx:11: import { nothing } from './does-not-exist';",
  "packages/core/src/plugins/loader.ts:9:   await import('./missing-plugin.js').catch(() => undefined);",
  "packages/legacy-utils/index.js:2: module.exports = require('./dist/utils.cjs.js');",
];

const asLines = (r: UnresolvedImports): string[] => r.items.map((e) => `${e.path}:${e.start_line}: ${e.snippet}`);
const keys = (items: ReadonlyArray<{ path: string; start_line: number; end_line: number }>): string[] => items.map((e) => `${e.path}:${e.start_line}-${e.end_line}`);

let d: TestDaemon | undefined;
let c: Client | undefined;
test.after.each(async () => {
  await c?.close(); c = undefined;
  if (d) await stopDaemon(d); d = undefined;
});
test.after(cleanupTemp);

test('index/unresolved over ws: the statements the compiler resolves to no file, then the packages; counts as index/status; paged; refused bad params; current after edits, an unreadable config', async () => {
  const root = fixtureRepo();
  d = await startDaemon(root);
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  const client = c;

  // The default: missing and unreadable-config statements, by path and line.
  const r = await client.request(Methods.indexUnresolved, {});
  assert.equal(asLines(r), FIVE_MISSING);
  assert.ok(r.items.every((e) => e.reason === 'missing' && e.kind === 'import'));
  assert.equal(r.items.map((e) => e.name), ['../package.json', './styles.css', './does-not-exist', './missing-plugin.js', './dist/utils.cjs.js']);
  assertEvidenceChecks(root, r.items);
  const status = await client.request(Methods.indexStatus);
  assert.equal(r.counts, status.index.tsImports.unresolved);
  assert.equal(r.counts, { missing: 5, config: 0, external: 22 });
  assert.is(r.total, 5);
  assert.equal(r.extensions, { missing: [['.js', 2], ['', 1], ['.css', 1], ['.json', 1]] });
  assert.is(r.generation, status.index.generation);

  // Against the compiler, as the oracle runs it: its unresolved paths are the missing ones, its packages the external ones.
  const oracle = runTsOracle(root, indexedFiles(root)).files.flatMap((f) => f.statements.map((s) => ({ ...s, path: f.path })));
  const oracleKeys = (u: string) => oracle.filter((s) => s.unresolved === u).map((s) => `${s.path}:${s.start}-${s.end}`).sort();
  assert.equal(keys(r.items).sort(), oracleKeys('missing'));
  const external = await client.request(Methods.indexUnresolved, { reasons: ['external'], limit: 200 });
  assert.is(external.total, 22);
  assert.equal(external.extensions, {}, 'packages are not counted by extension');
  assert.equal(keys(external.items).sort(), oracleKeys('package'));
  assertEvidenceChecks(root, external.items);

  // Every reason, paged by 4: the pages make up the whole list, missing first, each reason in path and line order.
  const whole = await client.request(Methods.indexUnresolved, { reasons: ['external', 'missing', 'config'], limit: 200 });
  assert.is(whole.total, 27);
  assert.equal(asLines(whole), [...FIVE_MISSING, ...asLines(external)]);
  const paged: string[] = [];
  for (let offset = 0; offset < whole.total; offset += 4) {
    const page = await client.request(Methods.indexUnresolved, { reasons: ['missing', 'external'], limit: 4, offset });
    assert.is(page.total, 27);
    paged.push(...asLines(page));
  }
  assert.equal(paged, asLines(whole));
  assert.equal((await client.request(Methods.indexUnresolved, { reasons: ['config'] })).items, []);
  assert.equal((await client.request(Methods.indexUnresolved, { offset: 5 })).items, []);

  // Bad params: refused with the schema's reason, and the connection keeps serving.
  for (const bad of [{ reasons: ['nope'] }, { reasons: [] }, { limit: 0 }, { limit: 201 }, { offset: -1 }, { reason: 'missing' }]) {
    const e = await client.requestRaw('index/unresolved', bad).then(() => null, (x: unknown) => x);
    assert.instance(e, RpcError, JSON.stringify(bad));
    assert.is((e as RpcError).code, -32602, JSON.stringify(bad));
  }

  // A new statement that reaches nothing is listed once the watcher has it; creating its file resolves it.
  writeFileSync(join(root, 'apps/web/src/late.ts'), "import { later } from './later-file';\nexport const x = later;\n");
  const six = await waitFor('the new missing statement', async () => {
    const now = await client.request(Methods.indexUnresolved, {});
    return now.total === 6 ? now : null;
  });
  assert.ok(asLines(six).includes("apps/web/src/late.ts:1: import { later } from './later-file';"));
  writeFileSync(join(root, 'apps/web/src/later-file.ts'), 'export const later = 1;\n');
  await waitFor('the statement resolved', async () => (await client.request(Methods.indexUnresolved, {})).total === 5);
  unlinkSync(join(root, 'apps/web/src/later-file.ts'));
  await waitFor('the statement missing again', async () => (await client.request(Methods.indexUnresolved, {})).total === 6);

  // Under a config that extends one the index lacks, a statement that reaches nothing is listed as config, after the missing ones.
  mkdirSync(join(root, 'apps/cfg'));
  writeFileSync(join(root, 'apps/cfg/tsconfig.json'), '{ "extends": "./base-not-here.json" }\n');
  writeFileSync(join(root, 'apps/cfg/a.ts'), "import './theme.scss';\n");
  const withConfig = await waitFor('the statement under the unreadable config', async () => {
    const now = await client.request(Methods.indexUnresolved, { limit: 200 });
    return now.counts.config === 1 ? now : null;
  });
  assert.equal(withConfig.counts, (await client.request(Methods.indexStatus)).index.tsImports.unresolved);
  assert.is(withConfig.total, 7);
  assert.equal(asLines(withConfig).at(-1), "apps/cfg/a.ts:1: import './theme.scss';");
  assert.is(withConfig.items.at(-1)!.reason, 'config');
  assert.equal(withConfig.extensions.config, [['.scss', 1]]);
  assert.equal(asLines(await client.request(Methods.indexUnresolved, { reasons: ['config'] })), ["apps/cfg/a.ts:1: import './theme.scss';"]);
});

test('a specifier\'s extension: of its last name, past a bundler\'s ?query or #hash; none for a dotfile or a bare name; other for no known file type\'s', () => {
  const cases: Array<[string, string]> = [
    ['./logo.svg?react', '.svg'], ['./a.css#x', '.css'], ['../package.json', '.json'], ['./dist/utils.cjs.js', '.js'],
    ['./does-not-exist', ''], ['./.env', ''], ['..', ''], ['.', ''], ['@scope/pkg.name/sub', ''], ['#internal/x.woff2', '.woff2'], ['./v1.2/x', ''],
    // A last dot-part that no file type has is part of a name (react-router's route type modules): `other`, not `.b`.
    ['./+types/client.a.b', 'other'], ['./+types/root', ''], ['./Logo.SVG', '.SVG'], ['./styles.module.css', '.css'],
  ];
  assert.equal(cases.map(([spec]) => [spec, specExtension(spec)]), cases);
});

test('evidex index --unresolved: in-process and through a daemon, from the root and a subfolder, paged, --json, hostile text escaped, usage errors', async () => {
  const root = fixtureRepo();
  const home = tempDir('unresolved-home');
  // A statement whose text would steer a terminal: it must print escaped.
  writeFileSync(join(root, 'evil.ts'), "import './\u001b]0;pwned\u0007.css';\n");
  const run = (args: string[], cwd = root) => evidex(['index', ...args], { cwd, home, env: { NO_COLOR: '1' } });

  const first = await run(['--unresolved', '--repo', '.']);
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, 'indexed ');
  assert.match(first.stdout, ' (in-process)\n');
  // 48 files: the link apps/legacy/lib/current.js -> greet.js is no file of its own (its require still resolves, through it, to greet.js).
  assert.match(first.stdout, '  ts/js   95 imports in 48 TS/JS files: 67 in the repository, 22 external packages, 6 missing, 0 under an unreadable config\n');
  const listed = first.stdout.slice(first.stdout.indexOf('# missing'));
  assert.is(listed, [
    "# missing (6): a relative path, a paths alias, a # import or a repository package's subpath that reaches no file of the repository the compiler would load (an asset such as .css, or JSON without resolveJsonModule, is none)",
    '#   by extension: 2 .css · 2 .js · 1 none · 1 .json',
    ...FIVE_MISSING.slice(0, 3),
    "evil.ts:1: import './\\x1b]0;pwned\\x07.css';",
    ...FIVE_MISSING.slice(3),
    '',
  ].join('\n'));
  assert.not.match(first.stdout, '\u001b');
  assert.match(first.stderr, /6 of 6 shown · index generation \d+\nnot listed: 22 external packages \(--reason external\)\n$/);

  // Through a daemon, from a subfolder: paths from there, a page of the external ones.
  const started = await evidex(['daemon', 'start', '--repo', root], { cwd: root, home });
  assert.is(started.code, 0, started.stderr);
  try {
    const sub = await run(['--unresolved', '--reason', 'external', '--limit', '2', '--offset', '1'], join(root, 'apps/legacy'));
    assert.is(sub.code, 0, sub.stderr);
    assert.match(sub.stdout, ' (daemon)\n');
    assert.ok(sub.stdout.endsWith([
      '# external packages (22): a bare specifier of no package of the repository',
      "lib/esm.mjs:2: import { readFile } from 'node:fs/promises';",
      "lib/esm.mjs:3: import debounce from 'lodash-es/debounce.js';",
      '',
    ].join('\n')), sub.stdout);
    assert.match(sub.stderr, /2 of 22 shown \(20 not shown: page with --offset and --limit\) · index generation \d+\nnot listed: 6 missing \(--reason missing\)\n$/);

    const json = await run(['--unresolved', '--reason', 'all', '--limit', '200', '--json']);
    assert.is(json.code, 0, json.stderr);
    const out = JSON.parse(json.stdout) as { via: string; tsImports: { unresolved: unknown }; unresolved: UnresolvedImports };
    assert.is(out.via, 'daemon');
    assert.is(out.unresolved.total, 28);
    assert.equal(out.unresolved.counts, out.tsImports.unresolved);
    assertEvidenceChecks(root, out.unresolved.items);
  } finally {
    await evidex(['daemon', 'stop', '--repo', root], { cwd: root, home });
  }

  for (const [args, message] of [
    [['--reason', 'missing'], '--reason goes with --unresolved'],
    [['--limit', '5'], '--limit goes with --unresolved'],
    [['--unresolved', '--reason', 'nowhere'], '--reason takes missing, config, external, all; got "nowhere"'],
  ] as const) {
    const bad = await run([...args]);
    assert.is(bad.code, 2, bad.stderr);
    assert.is(bad.stdout, '');
    assert.match(bad.stderr, message);
    assert.is(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  }
});

test('--path-prefix: only the statements under it, typed from here as the tool commands take it (/ the whole repository); the headers count under it and in the repository; a prefix nothing is under gets the nearest folder; index/unresolved\'s path_prefix and shown_from', async () => {
  const root = fixtureRepo();
  const web = join(root, 'apps/web');
  const run = (args: string[], home: string) => evidex(['index', '--unresolved', ...args], { cwd: web, home, env: { NO_COLOR: '1' } });
  const missingWhy = "a relative path, a paths alias, a # import or a repository package's subpath that reaches no file of the repository the compiler would load (an asset such as .css, or JSON without resolveJsonModule, is none)";

  // In-process, from apps/web: `src` is apps/web/src/.
  const inProcessHome = tempDir('unresolved-prefix-home');
  const here = await run(['--path-prefix', 'src'], inProcessHome);
  assert.is(here.code, 0, here.stderr);
  assert.match(here.stdout, ' (in-process)\n');
  assert.ok(here.stdout.endsWith([
    `# missing (2 under src/, 5 in the repository): ${missingWhy}`,
    '#   by extension: 1 none · 1 .css',
    "src/main.tsx:10: import './styles.css';",
    "src/main.tsx:11: import { nothing } from './does-not-exist';",
    '',
  ].join('\n')), here.stdout);
  assert.match(here.stderr, /\n2 of 2 shown · index generation \d+\nnot listed: 6 external packages \(--reason external\)\n$/);
  assert.match((await run(['--path-prefix', '/'], inProcessHome)).stdout, `\n# missing (5): ${missingWhy}\n`);
  const typo = await run(['--path-prefix', '../../packges/core'], inProcessHome);
  assert.is(typo.code, 0, typo.stderr);
  assert.match(typo.stderr, /\n0 of 0 shown · index generation \d+\nnote: nothing in the index is under --path-prefix "\.\.\/\.\.\/packges\/core"; did you mean "\.\.\/\.\.\/packages\/core\/"\?\n$/);
  assert.is((await evidex(['index', '--path-prefix', 'src'], { cwd: web, home: inProcessHome })).stderr, 'evidex: --path-prefix goes with --unresolved\n');

  // Through a daemon: the same from the command line, and index/unresolved itself.
  d = await startDaemon(root);
  c = await connect(root, { env: d.env });
  await waitWatcherReady(c);
  const core = await run(['--path-prefix', '../../packages/core', '--reason', 'all'], d.home);
  assert.is(core.code, 0, core.stderr);
  assert.match(core.stdout, ' (daemon)\n');
  assert.match(core.stdout, `\n# missing (1 under ../../packages/core/, 5 in the repository): ${missingWhy}\n#   by extension: 1 .js\n`
    + "../../packages/core/src/plugins/loader.ts:9:   await import('./missing-plugin.js').catch(() => undefined);\n"
    + '# external packages (3 under ../../packages/core/, 22 in the repository): ');
  const asked = await c.request(Methods.indexUnresolved, { reasons: ['missing', 'external'], path_prefix: 'packages/core', limit: 200 });
  assert.ok(asked.items.length === 4 && asked.items.every((e) => e.path.startsWith('packages/core/')), JSON.stringify(keys(asked.items)));
  assert.equal(asked.counts, { missing: 1, config: 0, external: 3 });
  assert.equal(asked.repository_counts, { missing: 5, config: 0, external: 22 });
  assert.is(asked.total, 4);
  assert.equal(asked.extensions, { missing: [['.js', 1]] });
  assert.is(asked.notes, undefined);
  assertEvidenceChecks(root, asked.items);
  // Paged under the prefix: the pages make up the whole list.
  const pages = [0, 1, 2, 3].map((offset) => c!.request(Methods.indexUnresolved, { reasons: ['missing', 'external'], path_prefix: 'packages/core', limit: 1, offset }));
  assert.equal((await Promise.all(pages)).flatMap(asLines), asLines(asked));
  assert.equal((await c.request(Methods.indexUnresolved, { path_prefix: 'packges/core', shown_from: 'apps/web/' })).notes,
    ['nothing in the index is under path_prefix "../../packges/core"; did you mean "../../packages/core/"?']);
  assert.equal((await c.request(Methods.indexUnresolved, { path_prefix: 'packges/core' })).notes,
    ['nothing in the index is under path_prefix "packges/core"; did you mean "packages/core/"?']);
  // A prefix out of the root is refused as the tools refuse it; a shown_from that is no folder of the root, as bad params.
  const escaped = await c.request(Methods.indexUnresolved, { path_prefix: '../x' }).then(() => null, (x: unknown) => x);
  assert.instance(escaped, RpcError);
  assert.is(((escaped as RpcError).data as { code: string }).code, 'path_denied');
  for (const from of ['../', '/abs/', 'apps/web', './', 'apps//']) {
    const bad = await c.requestRaw('index/unresolved', { shown_from: from }).then(() => null, (x: unknown) => x);
    assert.is((bad as RpcError).code, -32602, from);
  }
});

test.run();
