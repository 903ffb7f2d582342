// The layering rule, checked over every import of the source: static
// `import … from`, `export … from`, `import x = require(…)`, dynamic
// `import('…')`, and `import('…')` in type positions. Bottom to top:
//   indexer/  ←  protocol/ (types only from indexer/)  ←  daemon/  ←  client/
// and within indexer/: discover/, python/, store/  ←  query/, build/  ←
// index.ts, api.ts, the watcher (watch.ts, watch/). Imports point downward
// only. Package and `node:` imports are counted but judged by no rule.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from './helpers/fs.js';

const LAYERS = ['indexer', 'protocol', 'daemon', 'client'];

/**
 * Known violations, as `importing file -> imported file`, each to be removed
 * by the change that fixes it (the test fails on an entry that is no longer
 * needed, so the list cannot go stale):
 * - indexer/query/tools.ts and indexer/build/builder.ts take types from
 *   indexer/api.ts, which sits above them (a change in flight moves them down);
 * - indexer/query/schemas.ts takes READ_MAX_LINES from protocol/messages.ts
 *   (the CLI needs the number without loading the indexer or zod).
 */
const ALLOWED = new Set<string>([
  'indexer/query/tools.ts -> indexer/api.ts',
  'indexer/build/builder.ts -> indexer/api.ts',
  'indexer/query/schemas.ts -> protocol/messages.ts',
]);

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
/** indexer/index.ts, indexer/api.ts and the watcher: the top of the indexer. */
const indexerTop = (p: string): boolean => p === 'indexer/index.ts' || p === 'indexer/api.ts' || p.startsWith('indexer/watch');

/** The rule an import breaks, or null. */
function brokenRule(i: Import): string | null {
  const { file, target } = i;
  if (target === null) return null;
  if (target === '?') return 'a computed import cannot be checked';
  if (under(file, 'indexer')) {
    if (under(target, 'protocol', 'daemon', 'client')) return 'indexer/ imports nothing from protocol/, daemon/ or client/';
    if (under(file, 'indexer/discover', 'indexer/python', 'indexer/store')
      && (under(target, 'indexer/query', 'indexer/build') || indexerTop(target))) {
      return 'discover/, python/ and store/ import nothing from query/, build/, index.ts, api.ts or watch*';
    }
    if (under(file, 'indexer/query', 'indexer/build') && indexerTop(target)) {
      return 'query/ and build/ import nothing from index.ts, api.ts or watch*';
    }
  } else if (under(file, 'protocol')) {
    if (under(target, 'daemon', 'client')) return 'protocol/ imports nothing from daemon/ or client/';
    if (under(target, 'indexer') && !i.typeOnly) return 'protocol/ takes only types from indexer/ (import type)';
  } else if (under(file, 'daemon')) {
    if (under(target, 'client')) return 'daemon/ imports nothing from client/';
  }
  return null;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
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
  const found = importsOf('indexer/store/x.ts', text);
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
  assert.is(brokenRule(importsOf('client/c.ts', "import { Daemon } from '../daemon/server.js';")[0]), null);
  assert.is(brokenRule(importsOf('indexer/build/b.ts', "import { watch } from '../watch/aliases.js';")[0]),
    'query/ and build/ import nothing from index.ts, api.ts or watch*');
  assert.is(brokenRule(importsOf('indexer/query/q.ts', "import { Store } from '../store/store.js';")[0]), null);
});

test('imports point downward only: indexer ← protocol ← daemon ← client', () => {
  const imports: Import[] = [];
  let files = 0;
  for (const layer of LAYERS) {
    for (const abs of sourceFiles(join(PROJECT_ROOT, layer))) {
      imports.push(...importsOf(toPosix(relative(PROJECT_ROOT, abs)), readFileSync(abs, 'utf8')));
      files++;
    }
  }
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

test.run();
