// Near misses on small trees shaped like flask and httpx (an inherited
// method, a star re-export), and on TypeScript classes: the suggestions in the
// tool's JSON, in their documented order; find_importers' for a module no
// file is known by and in the refusal of a path the index does not hold; the
// CLI's one "did you mean" line, through a real CLI process and daemon; and
// what the model reads in `ask`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { existsSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidexIndex } from '../indexer/index.js';
import { ToolError } from '../indexer/errors.js';
import { baseNames } from '../indexer/query/bases.js';
import { evidenceEnvelope } from '../daemon/ask/prompt.js';
import { indexOnce } from './helpers/fresh-index.js';
import { cleanupTemp, PROJECT_ROOT, tempDir, write } from './helpers/fs.js';
import { testUnless } from './helpers/skip.js';

const tmp = tempDir('suggest');
const repo = join(tmp, 'repo');
const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');

write(repo, {
  'src/flask/__init__.py': 'from .app import Flask as Flask\nfrom .helpers import make_response\n',
  'src/flask/app.py': 'from .sansio.app import App\n\n\nclass Flask(App):\n    def wsgi_app(self, environ):\n        return environ\n',
  'src/flask/helpers.py': 'def make_response(*args):\n    return args\n',
  'src/flask/sansio/app.py': 'import typing as t\n\nfrom .scaffold import Scaffold\n\n\nclass App(Scaffold):\n    def add_url_rule(self, rule):\n        pass\n',
  'src/flask/sansio/scaffold.py': [
    'def setupmethod(f):', '    return f', '', '',
    'class Scaffold:', '    @setupmethod', '    def route(self, rule):', '        return rule', '',
    '    def get(self, rule):', '        return self.route(rule)', '',
  ].join('\n'),
  'tests/test_app.py': 'import flask\n\n\nclass Flask:\n    pass\n',
  'httpx/__init__.py': 'from ._client import *\nfrom ._models import *\n',
  'httpx/_client.py': 'class BaseClient:\n    def build_request(self):\n        pass\n\n\nclass Client(BaseClient):\n    def send(self):\n        pass\n',
  'httpx/_models.py': 'class Request:\n    pass\n',
  'web/base.ts': 'export class Base<T> {\n  run(x: T): T {\n    return x;\n  }\n}\n',
  'web/server.ts': "import { Base } from './base';\n\nexport class Server extends Base<string> implements Runner {\n  stop(): void {}\n}\n",
  'effect/src/Effect.ts': 'export interface Effect<A> {\n  readonly value: A;\n}\nexport const map = <A>(self: Effect<A>) => self;\nexport function flatMap() {}\n',
  'effect/src/Chunk.ts': 'export const map = 1;\n',
  'effect/src/Stream/index.ts': 'export const make = 1;\n',
  'router/router.ts': 'export interface Router {\n  navigate(to: string): void;\n}\nexport type Navigator = { go(): void };\n'
    // A member named in a nested type (meta.title) before the type's own: the type's own is the one declared.
    + '/** A route: {@link Router} goes to it. */\nexport interface Route {\n  meta: {\n    title: string;\n  };\n  readonly title?: string;\n}\n'
    // Members of a base: what an interface extends declares them (title, two levels up).
    + 'export interface FancyRoute extends Route {\n  fancy: true;\n}\nexport interface FanciestRoute extends FancyRoute {}\n',
  // lexical's shape: an interface that extends a class, merged with an interface of its name, that extends a class in another file.
  'nodes/LexicalNode.ts': 'export class LexicalNode {\n  getKey(): string {\n    return "";\n  }\n}\n',
  'nodes/ElementNode.ts': "import { LexicalNode } from './LexicalNode';\nexport interface ElementNode {\n  getTop(): ElementNode;\n}\n"
    + 'export class ElementNode\n  extends LexicalNode\n  implements Other\n{\n  getChildren(): number {\n    return 1;\n  }\n}\n',
  'nodes/utils.ts': "import { ElementNode } from './ElementNode';\nexport interface ShadowRootNode extends ElementNode {\n  isShadowRoot(): true;\n}\n",
  // vue's shape: a `declare module` block named by a relative path, beside the definition a bare name means.
  'reactive/computed.ts': 'export function computed() {}\n',
  'reactive/shim.d.ts': "declare module '../dist/reactive.prod' {\n  export function computed(): void;\n  export function watchEffect(): void;\n}\n",
  '.env': 'SECRET=1\n',
});

const { index, close } = indexOnce(repo, join(tmp, 'state'));

const suggested = async (tool: string, args: Record<string, unknown>): Promise<string[]> => {
  const r = await (await index()).runTool(tool, args);
  assert.is(r.total, 0, `${tool} ${JSON.stringify(args)} finds nothing`);
  return (r.suggestions ?? []).map((s) => `${s.name} ${s.why} ${s.path}${s.line ? `:${s.line}` : ''}${s.count ? ` x${s.count}` : ''}`);
};

test('find_symbol: an inherited method is suggested from the base that defines it, through two levels and imports', async () => {
  assert.equal(await suggested('find_symbol', { name: 'Flask.route' }), ['Scaffold.route inherited src/flask/sansio/scaffold.py:6']);
  assert.equal(await suggested('find_symbol', { name: 'flask.Flask.add_url_rule' }), ['App.add_url_rule inherited src/flask/sansio/app.py:7']);
  // Flask.get: Scaffold.get is inherited; names spelled alike come after it.
  const get = await suggested('find_symbol', { name: 'Flask.get' });
  assert.is(get[0], 'Scaffold.get inherited src/flask/sansio/scaffold.py:10');
  // Misspelt as well: the classes it inherits from count as its own for names alike.
  assert.equal(await suggested('find_symbol', { name: 'Flask.rout' }), ['Scaffold.route edit src/flask/sansio/scaffold.py:6']);
  assert.equal(await suggested('find_symbol', { name: 'httpx.Client.build_reqest' }), ['BaseClient.build_request edit httpx/_client.py:2']);
});

test('find_symbol: a name re-exported by a star import is suggested under the module that defines it', async () => {
  assert.equal(await suggested('find_symbol', { name: 'httpx.Client' }), ['httpx._client.Client reexported httpx/_client.py:6']);
  assert.equal(await suggested('find_symbol', { name: 'httpx.Client.send' }), ['httpx._client.Client.send reexported httpx/_client.py:7']);
  // Re-exported, then inherited.
  assert.equal(await suggested('find_symbol', { name: 'httpx.Client.build_request' }), ['BaseClient.build_request inherited httpx/_client.py:2']);
  // Re-exported and in another case: named under the module that defines it, as find_symbol answers it.
  assert.equal(await suggested('find_symbol', { name: 'httpx.client' }), ['httpx._client.Client case httpx/_client.py:6']);
  assert.equal((await (await index()).runTool('find_symbol', { name: 'httpx._client.Client' })).total, 1);
});

test('find_symbol: names alike — case first, then edit distance, then prefix; one suggestion per name with its count', async () => {
  assert.equal(await suggested('find_symbol', { name: 'flask' }), ['Flask case src/flask/app.py:4 x2']);
  assert.equal(await suggested('find_symbol', { name: 'make_respons' }), ['make_response edit src/flask/helpers.py:1']);
  assert.equal(await suggested('find_symbol', { name: 'Scafold.route' }), ['Scaffold.route edit src/flask/sansio/scaffold.py:6']);
  assert.equal(await suggested('find_symbol', { name: 'add_url' }), ['App.add_url_rule prefix src/flask/sansio/app.py:7']);
  assert.equal(await suggested('find_symbol', { name: 'zzzzzz' }), []);
  // A dot typed on (a member's name left out): the name without it.
  assert.equal(await suggested('find_symbol', { name: 'Client.' }), ['Client edit httpx/_client.py:6']);
  // A definition named by a relative module path is no spelling of a bare name.
  assert.equal(await suggested('find_symbol', { name: 'computedd' }), ['computed edit reactive/computed.ts:1']);
  assert.equal(await suggested('find_symbol', { name: 'watchEfect' }), []);
});

test('find_symbol: kind or path_prefix that filter every match away suggest the matches they left out, first', async () => {
  const r = await suggested('find_symbol', { name: 'Scaffold', kind: 'function' });
  assert.is(r[0], 'Scaffold filtered_out src/flask/sansio/scaffold.py:5');
});

test('base classes read from headers: Python (keywords, starred, subscripts, comments left out) and TypeScript (type arguments, implements left out)', () => {
  assert.equal(baseNames('a.py', '@dec\nclass Flask(  # the app\n    sansio.App, t.Generic[T], *mixins, metaclass=Meta,\n):\n    pass', 'Flask'), ['sansio.App', 't.Generic']);
  assert.equal(baseNames('a.py', 'class Box[T](Base[T]):\n    pass', 'Box'), ['Base']);
  assert.equal(baseNames('a.py', 'class Plain:\n    pass', 'Plain'), []);
  assert.equal(baseNames('a.ts', 'export class Server<T extends object> extends mod.Base<Map<string, T>> implements Runner {', 'Server'), ['mod.Base']);
  assert.equal(baseNames('a.ts', 'export interface Opts extends A, B<C> {', 'Opts'), ['A', 'B']);
  assert.equal(baseNames('a.ts', 'class Lone {}', 'Lone'), []);
});

/** TypeScript definitions come with the TypeScript indexer (indexer/typescript); without it the end-to-end case is skipped, not passed. */
const tsTest = testUnless(existsSync(join(PROJECT_ROOT, 'dist', 'indexer', 'typescript', 'extract.js')) ? null : 'no TypeScript indexer in this build');

tsTest('find_symbol: a TypeScript class inherits through `extends`', async () => {
  assert.equal(await suggested('find_symbol', { name: 'Server.run' }), ['Base.run inherited web/base.ts:2']);
});

tsTest('find_symbol: a TypeScript module\'s export as a namespace import writes it (Effect.map: map of Effect.ts, or of Stream/index.ts), first; an interface\'s or type alias\'s member gets a note', async () => {
  assert.equal(await suggested('find_symbol', { name: 'Effect.map' }), ['map module effect/src/Effect.ts:4'], 'not map of Chunk.ts');
  assert.equal(await suggested('find_symbol', { name: 'Effect.flatMap' }), ['flatMap module effect/src/Effect.ts:5']);
  assert.equal(await suggested('find_symbol', { name: 'Stream.make' }), ['make module effect/src/Stream/index.ts:1']);
  // Ranked before names alike: `Effect.mapp` has no module export, and finds none by this rule.
  assert.equal(await suggested('find_symbol', { name: 'Effect.nope' }), []);
  // Effect is an interface too, but the module answered: no note.
  const run = async (name: string) => (await index()).runTool('find_symbol', { name });
  assert.is((await run('Effect.map')).notes, undefined);
  assert.equal((await run('Router.navigate')).notes, [
    'no definition is named "Router.navigate": Router is an interface (router/router.ts:1), and the members of an interface or a type alias are not definitions: read them among its lines; "navigate" is declared at router/router.ts:2',
  ]);
  assert.match((await run('Route.title')).notes?.[0] ?? '', /: read them among its lines; "title" is declared at router\/router\.ts:10$/);
  assert.match((await run('FancyRoute.fancy')).notes?.[0] ?? '', /; "fancy" is declared at router\/router\.ts:13$/);
  assert.match((await run('FanciestRoute.title')).notes?.[0] ?? '', /; "title" is declared at router\/router\.ts:10 \(in Route, a base of FanciestRoute\)$/);
  // An interface that extends a class: the class's members, and those of the class it extends, past an interface merged with it.
  const shadow = await run('ShadowRootNode.getKey');
  assert.match(shadow.notes?.[0] ?? '', /; "getKey" is declared at nodes\/LexicalNode\.ts:2 \(in LexicalNode, a base of ShadowRootNode\)$/);
  assert.equal(shadow.suggestions?.map((s) => `${s.name} ${s.why} ${s.path}:${s.line}`), ['LexicalNode.getKey inherited nodes/LexicalNode.ts:2']);
  assert.match((await run('ShadowRootNode.getChildren')).notes?.[0] ?? '', /; "getChildren" is declared at nodes\/ElementNode\.ts:9 \(in ElementNode, a base of ShadowRootNode\)$/);
  assert.match((await run('ShadowRootNode.getTop')).notes?.[0] ?? '', /; "getTop" is declared at nodes\/ElementNode\.ts:3 \(in ElementNode, a base of ShadowRootNode\)$/);
  // The merged name itself: its class's base declares it.
  assert.match((await run('ElementNode.getKey')).notes?.[0] ?? '', /; "getKey" is declared at nodes\/LexicalNode\.ts:2 \(in LexicalNode, a base of ElementNode\)$/);
  // A member it does not have, or one written on the line that opens the type: where the type is, as before.
  assert.match((await run('Router.nope')).notes?.[0] ?? '', /: read them among its lines$/);
  assert.match((await run('Navigator.go')).notes?.[0] ?? '', /: read them among its lines$/);
  assert.ok((await run('Navigator.go')).notes?.[0]?.startsWith('no definition is named "Navigator.go": Navigator is a type alias (router/router.ts:4), and'));
  // A class's members are definitions: no note for a member it lacks; Python names never get one.
  assert.is((await run('Server.nope')).notes, undefined);
  assert.is((await run('Flask.nope')).notes, undefined);
});

test('find_importers: a module no file is known by gets the nearest module names and paths; a path not indexed says them in its refusal', async () => {
  assert.equal(await suggested('find_importers', { module_name: 'flask.ap' }), ['flask.app edit src/flask/app.py']);
  assert.equal(await suggested('find_importers', { module_name: 'scaffold' }), ['flask.sansio.scaffold tail src/flask/sansio/scaffold.py']);
  // A path whose folders are wrong: the file of that name elsewhere (the edit distance, 6, is past the bound).
  try {
    await (await index()).runTool('find_importers', { module_name: 'src/sansio/scaffold.py' });
    assert.unreachable('refused');
  } catch (e) {
    assert.match((e as ToolError).message, /is not in the index .*; did you mean: file src\/flask\/sansio\/scaffold\.py$/);
  }
  assert.equal(await suggested('find_importers', { module_name: 'HTTPX' }), [
    'httpx case httpx/__init__.py', 'httpx._client prefix httpx/_client.py', 'httpx._models prefix httpx/_models.py',
  ]);
  try {
    await (await index()).runTool('find_importers', { module_name: 'src/flask/ap.py' });
    assert.unreachable('refused');
  } catch (e) {
    assert.instance(e, ToolError);
    assert.is((e as ToolError).code, 'not_indexed');
    assert.match((e as ToolError).message, /is not in the index .*; did you mean: files? src\/flask\/app\.py(, |;|$)/);
    assert.not.match((e as ToolError).message, /\n/);
  }
  // A secret is never suggested, however close.
  assert.not.ok((await suggested('find_importers', { module_name: '.envv' })).some((s) => s.includes('.env ')));
  // A module that exists but that nothing imports is a real answer of 0: no suggestions.
  const r = await (await index()).runTool('find_importers', { module_name: 'flask.helpers' });
  assert.is(r.total, 1);
  const none = await (await index()).runTool('find_importers', { module_name: 'flask.sansio.scaffold', path_prefix: 'httpx/' });
  assert.is(none.total, 0);
  assert.is(none.suggestions, undefined);
  // So is an indexed file nothing imports, asked by its path (it was suggested to itself, "case").
  const byPath = await (await index()).runTool('find_importers', { module_name: 'src/flask/sansio/scaffold.py', path_prefix: 'httpx/' });
  assert.is(byPath.total, 0);
  assert.is(byPath.suggestions, undefined);
  // However the path is spelled, as find_importers reads it.
  for (const spelled of ['./src//flask/sansio/scaffold.py', 'src/flask/./sansio/scaffold.py/']) {
    const r = await (await index()).runTool('find_importers', { module_name: spelled, path_prefix: 'httpx/' });
    assert.is(r.total, 0, spelled);
    assert.is(r.suggestions, undefined, spelled);
  }
});

test('find_importers: a path through a symbolic link to an indexed file is that file: an exact answer, no suggestions', async () => {
  const linked = join(tempDir('suggest-link'), 'repo');
  write(linked, {
    'web/lonely.ts': 'export const lonely = 1;\n',
    'web/used.ts': 'export const used = 2;\n',
    'app.ts': "import { used } from './web/used';\n",
    'pkg/__init__.py': '',
    'pkg/lonely.py': 'X = 1\n',
    'pkg/used.py': 'Y = 2\n',
    'main.py': 'import pkg.used\n',
    '.evidexignore': 'hidden\n',
  });
  // A link back up the tree (the walk does not enter it) and an ignored one: neither indexes the files under its name.
  symlinkSync('.', join(linked, 'w'));
  symlinkSync('web', join(linked, 'hidden'));
  const li = await openEvidexIndex(linked, { stateDir: join(tempDir('suggest-link-state'), 'state') });
  await li.refresh();
  assert.ok(!li.store.fileByPath('w/web/lonely.ts') && !li.store.fileByPath('hidden/lonely.ts'), 'not indexed under the links');
  for (const asked of ['w/web/lonely.ts', 'hidden/lonely.ts', 'w/pkg/lonely.py', './w//pkg/lonely.py']) {
    const r = await li.runTool('find_importers', { module_name: asked });
    assert.is(r.total, 0, asked);
    assert.is(r.suggestions, undefined, `${asked}: nothing imports the file it leads to, an exact answer`);
  }
  for (const [asked, importer] of [['w/web/used.ts', 'app.ts'], ['hidden/used.ts', 'app.ts'], ['w/pkg/used.py', 'main.py']]) {
    const r = await li.runTool('find_importers', { module_name: asked });
    assert.equal(r.evidence.map((e) => `${e.path}:${e.start_line}`), [`${importer}:1`], `${asked} is answered for the file it leads to`);
  }
  // A link to nothing the index holds is still no file of it.
  try {
    await li.runTool('find_importers', { module_name: 'w/pkg/missing.py' });
    assert.unreachable('refused');
  } catch (e) {
    assert.is((e as ToolError).code, 'not_indexed');
  }
  await li.close();
});

test('the model reads the suggestions beside the empty answer, marked as names to call, not evidence', async () => {
  const r = await (await index()).runTool('find_symbol', { name: 'Flask.route' });
  const env = evidenceEnvelope('find_symbol', { name: 'Flask.route' }, r.evidence, r.total, r.generation, 2000, (t) => Math.ceil(t.length / 4), r);
  const data = JSON.parse(env.content).untrusted_data;
  assert.equal(data.suggestions, r.suggestions);
  assert.match(data.hint, /not evidence/);
  assert.is(env.shown.length, 0);
});

test('evidex symbol / importers print one "did you mean" line on stderr; --json carries the field', async () => {
  const home = join(tmp, 'home');
  const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args, '--repo', repo], {
    cwd: repo, encoding: 'utf8', timeout: 60_000, env: { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9' },
  });
  try {
    const sym = run(['symbol', 'Flask.route']);
    assert.is(sym.status, 0, sym.stderr);
    assert.is(sym.stdout, '');
    const lines = sym.stderr.trim().split('\n');
    assert.is(lines[lines.length - 1], 'did you mean: Scaffold.route (inherited, src/flask/sansio/scaffold.py:6)');
    const many = run(['symbol', 'flask']);
    assert.match(many.stderr, /did you mean: Flask \(case, src\/flask\/app\.py:4, \+1 more\)\n/);
    const imp = run(['importers', 'flask.ap']);
    assert.match(imp.stderr, /did you mean: module flask\.app \(spelt alike, src\/flask\/app\.py\)\n/);
    const json = JSON.parse(run(['symbol', 'httpx.Client', '--json']).stdout);
    assert.equal(json.suggestions, [{ name: 'httpx._client.Client', why: 'reexported', kind: 'class', path: 'httpx/_client.py', line: 6 }]);
    assert.match(run(['symbol', 'Effect.map']).stderr, /\ndid you mean: map \(module, effect\/src\/Effect\.ts:4\)\n$/);
    // The note names the interface's place from where the command runs.
    const sub = spawnSync(process.execPath, [BIN, 'symbol', 'Router.navigate', '--all', '--repo', repo], {
      cwd: join(repo, 'router'), encoding: 'utf8', timeout: 60_000, env: { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9' },
    });
    assert.match(sub.stderr, /\nnote: no definition is named "Router\.navigate": Router is an interface \(router\.ts:1\), and /, sub.stderr);
  } finally {
    run(['daemon', 'stop']);
  }
});

test('through MCP: structuredContent carries the suggestions, checked by the SDK client against the outputSchema, and the text says them too', async () => {
  const home = join(tmp, 'mcp-home');
  const env = { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9' } as Record<string, string>;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--repo', repo], env, stderr: 'pipe' });
  const client = new McpClient({ name: 'suggest-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const tools = await client.listTools();
    const out = tools.tools.find((t) => t.name === 'find_symbol')!.outputSchema as { properties: Record<string, unknown> };
    assert.ok(out.properties.suggestions, 'outputSchema lists suggestions');
    const r = await client.callTool({ name: 'find_symbol', arguments: { name: 'Flask.route' } });
    assert.is(r.isError, undefined);
    const want = [{ name: 'Scaffold.route', why: 'inherited', kind: 'method', path: 'src/flask/sansio/scaffold.py', line: 6 }];
    assert.equal((r.structuredContent as { suggestions: unknown }).suggestions, want);
    assert.equal(JSON.parse((r.content as Array<{ text: string }>)[0].text).suggestions, want);
    // A reason the outputSchema must list, or the SDK client refuses the answer.
    const mod = await client.callTool({ name: 'find_symbol', arguments: { name: 'Effect.map' } });
    assert.equal((mod.structuredContent as { suggestions: unknown }).suggestions, [{ name: 'map', why: 'module', kind: 'function', path: 'effect/src/Effect.ts', line: 4 }]);
  } finally {
    await client.close();
    spawnSync(process.execPath, [BIN, 'daemon', 'stop', '--repo', repo], { env, encoding: 'utf8', timeout: 60_000 });
  }
});

test('names alike follow saves: a name a save adds is suggested at once, and one it removes no longer is', async () => {
  const i = await index();
  // Asked first, so the names alike are in hand before the saves change them.
  assert.equal(await suggested('find_symbol', { name: 'startListner' }), []);
  write(repo, { 'web/listen.ts': 'export function startListener(): void {}\n' });
  await i.update(['web/listen.ts']);
  assert.equal(await suggested('find_symbol', { name: 'startListner' }), ['startListener edit web/listen.ts:1']);
  write(repo, { 'web/listen.ts': 'export function stopListener(): void {}\n' });
  await i.update(['web/listen.ts']);
  assert.equal(await suggested('find_symbol', { name: 'startListner' }), []);
  assert.equal(await suggested('find_symbol', { name: 'stopListner' }), ['stopListener edit web/listen.ts:1']);
  rmSync(join(repo, 'web/listen.ts'));
  await i.update(['web/listen.ts']);
  assert.equal(await suggested('find_symbol', { name: 'stopListner' }), []);
});

test.after(async () => { await close(); cleanupTemp(); });
test.run();
