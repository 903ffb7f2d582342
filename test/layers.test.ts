// The layering rule, checked over every import of the source: static
// `import … from`, `export … from`, `import x = require(…)`, dynamic
// `import('…')`, and `import('…')` in type positions. Bottom to top:
//   local/  ←  indexer/  ←  protocol/ (types only from indexer/)  ←  daemon/  ←  client/
// and within indexer/ and store/ the layer tables below. Imports point
// downward only, with one narrowing: client/ knows the daemon through local/
// and protocol/, and imports daemon/ only to run one in its own process
// (IN_PROCESS). Package and `node:` imports are counted but judged by no
// rule, except lmdb: only indexer/store/tables.ts (the index) and
// indexer/store/text-map.ts (the daemon's text map) may import it, so the
// on-disk layouts live in two places (indexer/store/FORMAT.md); and ollama:
// only the Ollama implementation of the ask loop's model (daemon/ask/ollama/).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT, sourceFiles } from './helpers/fs.js';

const LAYERS = ['local', 'indexer', 'protocol', 'daemon', 'client'];

/**
 * The only imports of daemon/ from client/: `evidex daemon run` hosts a
 * daemon in the CLI's process through the process entry (foreground.ts).
 * Everything else the client needs of a daemon — finding it, its state
 * folder, its settings, the wire — is in local/ and protocol/.
 */
const IN_PROCESS: ReadonlyMap<string, readonly string[]> = new Map([
  ['client/daemon-run.ts', ['daemon/foreground.ts']],
]);

/**
 * Known violations, as `importing file -> imported file`, each to be removed
 * by the change that fixes it (the test fails on an entry that is no longer
 * needed, so the list cannot go stale). None today.
 */
const ALLOWED = new Set<string>([]);

interface Import {
  /** The importing file, relative to the project root, POSIX. */
  file: string;
  line: number;
  /** The module specifier as written. */
  spec: string;
  /** The imported file relative to the project root (`.js` read as the `.ts` it is compiled from); null for a package or `node:` module. */
  target: string | null;
  /** Erased at compile time: `import type`, `export type`, every name marked `type`, or `import('…')` in a type. */
  typeOnly: boolean;
}

/** Every import of one source file. */
function importsOf(file: string, text: string): Import[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const out: Import[] = [];
  const add = (node: ts.Node, specNode: ts.Expression | undefined, typeOnly: boolean): void => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    if (!specNode || !ts.isStringLiteralLike(specNode)) {
      // A computed specifier cannot be checked: reported as an import of '?' (which no rule allows).
      out.push({ file, line, spec: '?', target: '?', typeOnly: false });
      return;
    }
    const spec = specNode.text;
    const target = spec.startsWith('.')
      ? posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts')
      : null;
    out.push({ file, line, spec, target, typeOnly });
  };
  const allTypes = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>): boolean =>
    elements.length > 0 && elements.every((e) => e.isTypeOnly);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const c = node.importClause;
      const typeOnly = c !== undefined && (c.isTypeOnly
        || (c.name === undefined && c.namedBindings !== undefined && ts.isNamedImports(c.namedBindings) && allTypes(c.namedBindings.elements)));
      add(node, node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const typeOnly = node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && allTypes(node.exportClause.elements));
      add(node, node.moduleSpecifier, typeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], false);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      add(node, ts.isLiteralTypeNode(arg) ? arg.literal as ts.Expression : undefined, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const under = (p: string, ...folders: string[]): boolean => folders.some((f) => p.startsWith(`${f}/`));

/**
 * The layers inside indexer/, lowest first (a name ending in "/" is a
 * folder): a module may import its own layer or lower ones. Every indexer
 * module must be placed here, so a new one is placed on purpose.
 */
const INDEXER_LAYERS: readonly (readonly string[])[] = [
  // query/limits.ts has no imports (the CLI loads it alone): the tools' bounds and kinds, which model.ts names too.
  ['model.ts', 'text.ts', 'errors.ts', 'evidence.ts', 'write-failure.ts', 'query/limits.ts'],
  ['discover/', 'python/', 'typescript/'],
  ['store/'],
  ['build/', 'query/'],
  ['index.ts', 'api.ts', 'compaction-schedule.ts'],
  ['watch.ts', 'watch/'],
];

/** Within store/: the parts the Store façade composes, each below the ones that use it. */
const STORE_LAYERS: readonly (readonly string[])[] = [
  ['path-order.ts', 'sorted.ts', 'in-slices.ts', 'trigrams.ts', 'case-data.ts', 'lmdb-in-place.ts', 'text-map.ts', 'search-text.ts', 'mapped-text.ts', 'block-signatures.ts', 'line-counts.ts', 'postings.ts', 'target-order.ts', 'symbols.ts', 'tables.ts', 'commit-room.ts', 'commit-parts.ts'],
  ['file-table.ts'],
  ['memory.ts'],
  ['plan.ts'],
  ['store.ts'],
];

/** The layer of `rel` in `layers` (-1 when it is in none). */
function layerOf(layers: readonly (readonly string[])[], rel: string): number {
  return layers.findIndex((l) => l.some((m) => (m.endsWith('/') ? rel.startsWith(m) : rel === m)));
}

/** The rule an import inside indexer/ breaks, or null. */
function indexerRule(file: string, target: string): string | null {
  const from = file.slice('indexer/'.length);
  const to = target.slice('indexer/'.length);
  for (const [rel, path] of [[from, file], [to, target]]) {
    if (layerOf(INDEXER_LAYERS, rel) < 0) return `${path} is in no layer of INDEXER_LAYERS (place it there)`;
  }
  if (layerOf(INDEXER_LAYERS, to) > layerOf(INDEXER_LAYERS, from)) return `indexer/ layers: ${from} sits below ${to}`;
  if (from.startsWith('store/') && to.startsWith('store/')) {
    const [f, t] = [from.slice('store/'.length), to.slice('store/'.length)];
    for (const [rel, path] of [[f, file], [t, target]]) {
      if (layerOf(STORE_LAYERS, rel) < 0) return `${path} is in no layer of STORE_LAYERS (place it there)`;
    }
    if (layerOf(STORE_LAYERS, t) > layerOf(STORE_LAYERS, f)) return `store/ layers: ${f} sits below ${t}`;
  }
  return null;
}

/** The rule an import breaks, or null. */
function brokenRule(i: Import): string | null {
  const { file, target } = i;
  if (target === null) return null;
  if (target === '?') return 'a computed import cannot be checked';
  if (under(file, 'local')) {
    if (under(target, 'indexer', 'protocol', 'daemon', 'client')) return 'local/ imports nothing from indexer/, protocol/, daemon/ or client/';
  } else if (under(file, 'indexer')) {
    if (under(target, 'protocol', 'daemon', 'client')) return 'indexer/ imports nothing from protocol/, daemon/ or client/';
    if (under(target, 'indexer')) return indexerRule(file, target);
  } else if (under(file, 'protocol')) {
    if (under(target, 'daemon', 'client')) return 'protocol/ imports nothing from daemon/ or client/';
    if (under(target, 'indexer') && !i.typeOnly) return 'protocol/ takes only types from indexer/ (import type)';
  } else if (under(file, 'daemon')) {
    if (under(target, 'client')) return 'daemon/ imports nothing from client/';
  } else if (under(file, 'client')) {
    if (under(target, 'daemon') && !IN_PROCESS.get(file)?.includes(target)) {
      return 'client/ imports daemon/ only to run one in-process (IN_PROCESS); it knows a daemon through local/ and protocol/';
    }
  }
  return null;
}

const toPosix = (p: string): string => (sep === '/' ? p : p.split(sep).join('/'));

test('the checker sees every kind of import and applies each rule', () => {
  const text = [
    "import type { A } from '../../daemon/a.js';",   // 1: indexer → daemon, even for a type
    "import { type B, type C } from '../api.js';",    // 2: store → api (types count)
    "export * from '../query/tools.js';",             // 3: store → query
    "const m = await import('../../client/cli.js');", // 4: dynamic
    "let t: import('../watch.js').WatchMode;",         // 5: a type position
    "import { readFileSync } from 'node:fs';",        // 6: no rule
    "import { x } from '../text.js';",                // 7: downward: fine
    "const n = await import(name);",                  // 8: computed
  ].join('\n');
  const found = importsOf('indexer/store/plan.ts', text);
  assert.equal(found.map((i) => [i.line, i.target, i.typeOnly]), [
    [1, 'daemon/a.ts', true], [2, 'indexer/api.ts', true], [3, 'indexer/query/tools.ts', false],
    [4, 'client/cli.ts', false], [5, 'indexer/watch.ts', true], [6, null, false], [7, 'indexer/text.ts', false], [8, '?', false],
  ]);
  assert.equal(found.map((i) => brokenRule(i) !== null), [true, true, true, true, true, false, false, true]);

  const proto = importsOf('protocol/m.ts', [
    "import type { E } from '../indexer/evidence.js';",
    "import { type E2 } from '../indexer/evidence.js';",
    "import { MAX } from '../indexer/limits.js';",
    "export type { W } from '../indexer/watch.js';",
    "import type { Ask } from '../daemon/ask.js';",
  ].join('\n'));
  assert.equal(proto.map((i) => brokenRule(i)), [
    null, null, 'protocol/ takes only types from indexer/ (import type)', null, 'protocol/ imports nothing from daemon/ or client/',
  ]);
  assert.is(brokenRule(importsOf('daemon/d.ts', "import { main } from '../client/cli.js';")[0]), 'daemon/ imports nothing from client/');
  const client = importsOf('client/c.ts', [
    "import { Daemon } from '../daemon/server.js';",
    "import type { DaemonInfo } from '../daemon/state.js';",
    "import { stateDirFor } from '../local/state.js';",
    "import { Methods } from '../protocol/messages.js';",
  ].join('\n'));
  const viaDaemon = 'client/ imports daemon/ only to run one in-process (IN_PROCESS); it knows a daemon through local/ and protocol/';
  assert.equal(client.map((i) => brokenRule(i)), [viaDaemon, viaDaemon, null, null]);
  assert.is(brokenRule(importsOf('client/daemon-run.ts', "import { serveForeground } from '../daemon/foreground.js';")[0]), null);
  assert.is(brokenRule(importsOf('client/daemon-run.ts', "import { Daemon } from '../daemon/server.js';")[0]), viaDaemon);
  const local = importsOf('local/state.ts', [
    "import { canonicalRoot } from './root.js';",
    "import type { WatchMode } from '../indexer/watch.js';",
    "import type { AskParams } from '../protocol/messages.js';",
  ].join('\n'));
  assert.equal(local.map((i) => brokenRule(i)), [null, ...Array(2).fill('local/ imports nothing from indexer/, protocol/, daemon/ or client/')]);
  assert.is(brokenRule(importsOf('indexer/query/git-diff.ts', "import { runGit } from '../../local/git.js';")[0]), null);
  assert.is(brokenRule(importsOf('protocol/p.ts', "import { stateDirFor } from '../local/state.js';")[0]), null);
  assert.is(brokenRule(importsOf('indexer/build/builder.ts', "import { watch } from '../watch/queued.js';")[0]),
    'indexer/ layers: build/builder.ts sits below watch/queued.ts');
  assert.is(brokenRule(importsOf('indexer/query/tools.ts', "import { Store } from '../store/store.js';")[0]), null);
  assert.is(brokenRule(importsOf('indexer/store/tables.ts', "import { MemoryIndex } from './memory.js';")[0]),
    'store/ layers: tables.ts sits below memory.ts');
  assert.is(brokenRule(importsOf('indexer/store/store.ts', "import { x } from './new-part.js';")[0]),
    'indexer/store/new-part.ts is in no layer of STORE_LAYERS (place it there)');
  assert.is(brokenRule(importsOf('indexer/odd.ts', "import { x } from './text.js';")[0]),
    'indexer/odd.ts is in no layer of INDEXER_LAYERS (place it there)');
});

/** Every import of every source file of the four layers, read once for the tests below. */
const source = ((): { imports: Import[]; files: number } => {
  const imports: Import[] = [];
  let files = 0;
  for (const layer of LAYERS) {
    for (const abs of sourceFiles(join(PROJECT_ROOT, layer))) {
      imports.push(...importsOf(toPosix(relative(PROJECT_ROOT, abs)), readFileSync(abs, 'utf8')));
      files++;
    }
  }
  return { imports, files };
})();

test('imports point downward only: local ← indexer ← protocol ← daemon ← client; client → daemon only in-process', () => {
  const { imports, files } = source;
  const internal = imports.filter((i) => i.target !== null).length;
  console.log(`${imports.length} imports checked in ${files} files (${internal} between our own modules)`);
  // The walk found the source: a parse that saw nothing would pass every rule.
  assert.ok(files > 60 && internal > 150, `too few imports found (${files} files, ${internal} internal): is the source where the test looks?`);

  const violations: string[] = [];
  const allowedSeen = new Set<string>();
  for (const i of imports) {
    const rule = brokenRule(i);
    if (rule === null) continue;
    const pair = `${i.file} -> ${i.target}`;
    if (ALLOWED.has(pair)) { allowedSeen.add(pair); continue; }
    violations.push(`${i.file}:${i.line} imports ${i.spec} (${rule})`);
  }
  for (const v of violations) console.log(`  ${v}`);
  const stale = [...ALLOWED].filter((p) => !allowedSeen.has(p));
  for (const p of stale) console.log(`  allow-listed but no longer imported (remove it from ALLOWED): ${p}`);
  assert.is(violations.length, 0, `${violations.length} import(s) point upward:\n${violations.join('\n')}`);
  assert.equal(stale, [], 'ALLOWED holds entries that are no longer needed');
});

test('lmdb is imported by indexer/store/tables.ts (the index), indexer/store/text-map.ts (the text map) and indexer/store/lmdb-in-place.ts (its in-place reads) alone', () => {
  const importers = new Set(source.imports.filter((i) => i.spec === 'lmdb' || i.spec.startsWith('lmdb/')).map((i) => i.file));
  assert.equal([...importers].sort(), ['indexer/store/lmdb-in-place.ts', 'indexer/store/tables.ts', 'indexer/store/text-map.ts']);
});

test('a model API stays in its folder: each package imported inside its folder alone (ollama in daemon/ask/ollama/, openai in daemon/ask/openai/), each folder only by daemon/ask/models.ts', () => {
  // The ask loop knows models through daemon/ask/model.ts (ChatModel); models.ts is the one place that picks an implementation.
  for (const api of ['ollama', 'openai']) {
    const pkg = new Set(source.imports.filter((i) => i.spec === api || i.spec.startsWith(`${api}/`)).map((i) => i.file));
    assert.ok(pkg.size > 0, `no import of ${api} found: is the source where the test looks?`);
    assert.equal([...pkg].filter((f) => !f.startsWith(`daemon/ask/${api}/`)), [], `the ${api} package outside daemon/ask/${api}/`);
    const users = new Set(source.imports.filter((i) => i.target?.startsWith(`daemon/ask/${api}/`) && !i.file.startsWith(`daemon/ask/${api}/`)).map((i) => i.file));
    assert.equal([...users], ['daemon/ask/models.ts'], api);
  }
});

test.run();
