// TypeScript/JavaScript import resolution through a real index of a small
// monorepo written in a temp folder: every statement's target (or reason) is
// pinned by hand, and every target that needs no build-output mapping is
// checked against the compiler itself — ts.resolveModuleName on the real
// files, under the file's config, with the workspace packages linked into a
// real node_modules as an install would link them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { openEvidexIndex, type EvidexIndex } from '../indexer/index.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';

const tmp = tempDir('ts-resolve');
const json = (v: unknown): string => JSON.stringify(v, null, 2);

/** The tree: workspaces, a solution config, paths and extends, NodeNext with .js specifiers, conditions, jsconfig, a broken config. */
const TREE: Record<string, string> = {
  '.gitignore': 'node_modules/\n',
  'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'] }),
  'tsconfig.json': json({ files: [], references: [{ path: 'packages/ui' }, { path: 'packages/app' }, { path: 'packages/node-esm' }] }),
  'tsconfig.base.json': json({ compilerOptions: { baseUrl: '.', paths: { '@shared/*': ['common/*'] }, strict: true } }),
  'common/util.ts': 'export const util = 1;\n',
  'packages/ui/package.json': json({ name: '@org/ui', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.mjs' }, './button': './src/button.tsx' } }),
  'packages/ui/tsconfig.json': json({ compilerOptions: { outDir: 'dist', rootDir: 'src', jsx: 'react-jsx' }, include: ['src'] }),
  'packages/ui/src/index.ts': 'export * from "./button";\nexport { helper } from "./util/helper";\n',
  'packages/ui/src/button.tsx': 'export const Button = () => <button />;\n',
  'packages/ui/src/util/helper.ts': 'export function helper() {}\n',
  'packages/cond/package.json': json({ name: '@org/cond', exports: { '.': { source: './src/dev.ts', default: './lib/prod.js' } } }),
  'packages/cond/src/dev.ts': 'export const dev = true;\n',
  'packages/cond/lib/prod.js': 'exports.dev = false;\n',
  'packages/dual/package.json': json({ name: '@org/dual', exports: { '.': { import: './esm/index.mjs', require: './cjs/index.cjs' } } }),
  'packages/dual/esm/index.mjs': 'export const esm = 1;\n',
  'packages/dual/cjs/index.cjs': 'exports.cjs = 1;\n',
  'packages/app/package.json': json({ name: 'app', imports: { '#internal/*': './src/internal/*.ts' } }),
  'packages/app/tsconfig.json': json({
    extends: '../../tsconfig.base.json',
    compilerOptions: { baseUrl: '.', paths: { '@/*': ['src/*'], '@shared/*': ['../../common/*'] }, module: 'esnext', moduleResolution: 'bundler', customConditions: ['source'], allowJs: true },
    include: ['src'],
  }),
  'packages/app/src/main.ts': [
    'import { Button } from "@org/ui";',             // 1: through exports to dist/index.d.ts, mapped to src/index.ts
    'import { Button as B2 } from "@org/ui/button";',// 2: exports straight to source
    'import { x } from "@/lib/x";',                  // 3: paths
    'import React from "react";',                    // 4: external
    'import "./missing";',                           // 5: missing
    'import { dev } from "@org/cond";',              // 6: customConditions
    'import { a } from "#internal/a";',              // 7: package.json imports
    'import { util } from "@shared/util";',          // 8: paths (the app's own, over the base's)
    'const d = require("@org/dual");',               // 9: require condition
    'import("@org/dual");',                          // 10: import condition
    'import "@org/ui/nonexistent";',                 // 11: a repository package's missing subpath
    'export type T = import("./lib/x").X;',          // 12: import type
  ].join('\n') + '\n',
  'packages/app/src/lib/x.ts': 'export const x = 1;\nexport interface X {}\n',
  'packages/app/src/internal/a.ts': 'export const a = 1;\n',
  'packages/app/src/old.js': 'const m = require("./lib/x");\nmodule.exports = m;\n',
  'packages/node-esm/package.json': json({ name: 'node-esm', type: 'module' }),
  'packages/node-esm/tsconfig.json': json({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }),
  'packages/node-esm/src/a.ts': [
    'import { b } from "./b.js";',     // 1: .js names the .ts
    'import "./dir/index.js";',        // 2
    'import c = require("./c");',      // 3: require mode: no extension needed
    'import("./c");',                  // 4: import mode: the extension is needed
    'import "./b";',                   // 5: missing in ESM
  ].join('\n') + '\n',
  'packages/node-esm/src/b.ts': 'export const b = 1;\n',
  'packages/node-esm/src/c.ts': 'export = 1;\n',
  'packages/node-esm/src/dir/index.ts': 'export {};\n',
  'packages/node-esm/src/d.cts': 'import e = require("./e");\nimport f from "./f";\n',
  'packages/node-esm/src/e.ts': 'export = 1;\n',
  'packages/node-esm/src/f.ts': 'export default 1;\n',
  'scripts/tool.mjs': 'import fs from "node:fs";\nimport { helper } from "../packages/ui/src/util/helper.ts";\nimport { b } from "../packages/node-esm/src/b";\n',
  'web/jsconfig.json': json({ compilerOptions: { baseUrl: '.' } }),
  'web/app.js': 'import { X } from "components/x";\n',
  'web/components/x.js': 'export const X = 1;\n',
  'broken/tsconfig.json': '{ "compilerOptions": { "strict": true, oops } ',
  'broken/a.ts': 'import "./nope";\nimport "react";\nimport "./b";\n',
  'broken/b.ts': 'export {};\n',
  // A package whose main names build output with no source: the compiler goes on to its root index.js.
  'packages/legacy/package.json': json({ name: '@org/legacy', main: 'dist/utils.cjs.js' }),
  'packages/legacy/index.js': 'exports.slugify = (s) => s;\n',
  'packages/legacy/src/index.ts': 'export const slugify = (s: string) => s;\n',
  'legacy/app.js': 'const { slugify } = require("@org/legacy");\nconst greet = require("./lib/current");\n',
  'legacy/lib/greet.js': 'exports.greet = 1;\n',
  // Bundler layouts (tsup, tsdown, unbuild): every output form, .mjs/.cjs/.d.mts/.d.cts included, built from src/index.ts.
  'packages/tsup/package.json': json({ name: '@x/lib', exports: { '.': {
    import: { types: './dist/index.d.mts', default: './dist/index.mjs' }, require: { types: './dist/index.d.cts', default: './dist/index.cjs' } } } }),
  'packages/tsup/tsconfig.json': json({ compilerOptions: { outDir: 'dist', rootDir: 'src' }, include: ['src'] }),
  'packages/tsup/src/index.ts': 'export function libFn() {}\n',
  'packages/tsup-untyped/package.json': json({ name: '@x/untyped', exports: { import: './dist/index.mjs', require: './dist/index.cjs' } }),
  'packages/tsup-untyped/src/index.ts': 'export const untyped = 1;\n',
  // A package built from JavaScript (Babel's src/ → lib/), no tsconfig: its out folder comes from `main`.
  'packages/babel/package.json': json({ name: '@x/babel', main: 'lib/index.js', module: 'lib/index.mjs' }),
  'packages/babel/src/index.js': 'export const babel = 1;\n',
  // trpc's layout: built by tsdown into the package's dist/, while the tsconfig it extends sets the root's ./dist as outDir.
  'tsconfig.lib.json': json({ compilerOptions: { outDir: './dist', declaration: true } }),
  'packages/client/package.json': json({ name: '@x/client', main: './dist/index.cjs', module: './dist/index.mjs', types: './dist/index.d.cts',
    exports: { '.': { import: { types: './dist/index.d.mts', default: './dist/index.mjs' }, require: { types: './dist/index.d.cts', default: './dist/index.cjs' } } } }),
  'packages/client/tsconfig.json': json({ extends: '../../tsconfig.lib.json', include: ['src'] }),
  'packages/client/src/index.ts': 'export const client = 1;\n',
  'packages/node10/tsconfig.json': json({ compilerOptions: { moduleResolution: 'node', module: 'commonjs' }, include: ['src'] }),
  'packages/node10/src/main.ts': 'import { client } from "@x/client";\n',  // node10 reads no exports: types ./dist/index.d.cts
  'packages/app/src/bundled.ts': [
    'import { libFn } from "@x/lib";',        // 1: import condition, types ./dist/index.d.mts → src/index.ts
    'const lib = require("@x/lib");',         // 2: require condition, types ./dist/index.d.cts → src/index.ts
    'import { untyped } from "@x/untyped";',  // 3: ./dist/index.mjs, no types: the compiler looks for dist/index.d.mts
    'import { babel } from "@x/babel";',      // 4: lib/index.js → src/index.js
    'import { client } from "@x/client";',    // 5: an outDir outside the package is none of its layout
    'import { q } from "@x/tq";',             // 6: build/modern/index.js: a variant folder the source tree has not → src/index.ts
    'import { u } from "@x/tq/utils";',       // 7: build/modern/utils/index.js → src/utils/index.ts
    'import { xl } from "@x/xl";',            // 8: dist/types/xl/index.d.ts from rootDir ../ → packages/xl/index.tsx
    'import { thing } from "@x/xl/other/thing";', // 9: dist/types/other/src/thing.d.ts → packages/other/src/thing.ts
    'import { rtk } from "@x/rtk";',          // 10: dist/index.d.mts, rootDir . holds no index → src/index.ts
    'import { query } from "@x/rtk/query";',  // 11: dist/query/index.d.mts → src/query/index.ts
    'import { extra } from "@x/rtk/extra";',  // 12: dist/extra.d.ts → extra.ts under rootDir ., before src/extra.ts
  ].join('\n') + '\n',
  // Redux Toolkit's layout: the tsconfig type-checks the whole package (rootDir .) into dist/, while a bundler builds dist/ from src/.
  'packages/rtk/package.json': json({ name: '@x/rtk', exports: {
    '.': { types: './dist/index.d.mts' }, './query': { types: './dist/query/index.d.mts' }, './extra': { types: './dist/extra.d.ts' } } }),
  'packages/rtk/tsconfig.json': json({ compilerOptions: { outDir: './dist', rootDir: './' } }),
  'packages/rtk/src/index.ts': 'export const rtk = 1;\n',
  'packages/rtk/src/query/index.ts': 'export const query = 1;\n',
  'packages/rtk/extra.ts': 'export const extra = 1;\n',
  'packages/rtk/src/extra.ts': 'export const extra = 2;\n',
  // TanStack's layout: the tsconfig type-checks into dist-ts (rootDir '.'), tsdown ships build/modern and build/legacy from src/.
  'packages/tq/package.json': json({ name: '@x/tq', main: 'build/legacy/index.cjs', types: 'build/legacy/index.d.ts', exports: {
    '.': { import: { types: './build/modern/index.d.ts', default: './build/modern/index.js' }, require: './build/modern/index.cjs' },
    './utils': { import: { types: './build/modern/utils/index.d.ts', default: './build/modern/utils/index.js' } } } }),
  'packages/tq/tsconfig.json': json({ compilerOptions: { outDir: './dist-ts', rootDir: '.' }, include: ['src'] }),
  'packages/tq/src/index.ts': 'export const q = 1;\n',
  'packages/tq/src/utils/index.ts': 'export const u = 1;\n',
  // excalidraw's layout: each package type-checks from `rootDir: "../"` (the packages folder) into its dist/types, so the
  // declarations of its own files sit under dist/types/<its folder>/ and those of a sibling package it imports from beside them.
  'packages/xl/package.json': json({ name: '@x/xl', exports: {
    '.': { types: './dist/types/xl/index.d.ts', default: './dist/prod/index.js' }, './other/*': { types: './dist/types/other/src/*.d.ts' } } }),
  'packages/xl/tsconfig.json': json({ compilerOptions: { outDir: './dist/types', rootDir: '../' }, include: ['**/*'] }),
  'packages/xl/index.tsx': 'export const xl = 1;\n',
  'packages/other/src/thing.ts': 'export const thing = 1;\n',
  // vitest's @vitest/browser: a package importing itself by name (the compiler's self-name lookup, in the package's own folder)
  // through an export whose types are build output and whose default is a stub that exists.
  'packages/self/package.json': json({ name: '@x/self', exports: { './vendor': { types: './dist/vendor.d.ts', default: './dummy.js' } } }),
  'packages/self/dummy.js': 'export {};\n',
  'packages/self/src/vendor.ts': 'export const vendor = 1;\n',
  'packages/self/src/use.ts': [
    'import { vendor } from "@x/self/vendor";', // 1: types ./dist/vendor.d.ts → src/vendor.ts, as through node_modules; not the stub
    'import "../dist/vendor.js";',              // 2: a relative path into dist/ is no package lookup: missing
  ].join('\n') + '\n',
  'packages/node-esm/src/g.cts': 'import lib = require("@x/lib");\nimport { untyped } from "@x/untyped";\n',
  'packages/node-esm/src/h.ts': 'import { libFn } from "@x/lib";\nimport { babel } from "@x/babel";\n',
};
/** Symbolic links of the tree: path → what it points to. */
const LINKS: Record<string, string> = { 'legacy/lib/current.js': 'greet.js' };

/** Each statement's answer: its file target, or `why` for one that reached none. */
const EXPECTED: Record<string, string[]> = {
  'packages/app/src/main.ts': [
    'packages/ui/src/index.ts', 'packages/ui/src/button.tsx', 'packages/app/src/lib/x.ts', 'external', 'missing',
    'packages/cond/src/dev.ts', 'packages/app/src/internal/a.ts', 'common/util.ts', 'packages/dual/cjs/index.cjs',
    'packages/dual/esm/index.mjs', 'missing', 'packages/app/src/lib/x.ts',
  ],
  'packages/app/src/old.js': ['packages/app/src/lib/x.ts'],
  'packages/ui/src/index.ts': ['packages/ui/src/button.tsx', 'packages/ui/src/util/helper.ts'],
  'packages/node-esm/src/a.ts': ['packages/node-esm/src/b.ts', 'packages/node-esm/src/dir/index.ts', 'packages/node-esm/src/c.ts', 'missing', 'missing'],
  'packages/node-esm/src/d.cts': ['packages/node-esm/src/e.ts', 'packages/node-esm/src/f.ts'],
  'scripts/tool.mjs': ['external', 'packages/ui/src/util/helper.ts', 'packages/node-esm/src/b.ts'],
  'web/app.js': ['web/components/x.js'],
  'broken/a.ts': ['config', 'external', 'broken/b.ts'],
  // Through the link, the file it leads to.
  'legacy/app.js': ['packages/legacy/index.js', 'legacy/lib/greet.js'],
  'packages/app/src/bundled.ts': ['packages/tsup/src/index.ts', 'packages/tsup/src/index.ts', 'packages/tsup-untyped/src/index.ts', 'packages/babel/src/index.js',
    'packages/client/src/index.ts', 'packages/tq/src/index.ts', 'packages/tq/src/utils/index.ts', 'packages/xl/index.tsx', 'packages/other/src/thing.ts',
    'packages/rtk/src/index.ts', 'packages/rtk/src/query/index.ts', 'packages/rtk/extra.ts'],
  'packages/node10/src/main.ts': ['packages/client/src/index.ts'],
  // NodeNext without allowJs: require mode to .d.cts, import mode to .d.mts, and the compiler's .d.ts for lib/index.js.
  'packages/node-esm/src/g.cts': ['packages/tsup/src/index.ts', 'packages/tsup-untyped/src/index.ts'],
  'packages/node-esm/src/h.ts': ['packages/tsup/src/index.ts', 'packages/babel/src/index.js'],
  'packages/self/src/use.ts': ['packages/self/src/vendor.ts', 'missing'],
};

/** The config each file is governed by ('' = the defaults). */
const GOVERNING: Record<string, string> = {
  'packages/app/src/main.ts': 'packages/app/tsconfig.json', 'packages/app/src/old.js': 'packages/app/tsconfig.json',
  'packages/ui/src/index.ts': 'packages/ui/tsconfig.json', 'packages/node-esm/src/a.ts': 'packages/node-esm/tsconfig.json',
  'packages/node-esm/src/d.cts': 'packages/node-esm/tsconfig.json', 'scripts/tool.mjs': '', 'web/app.js': 'web/jsconfig.json',
  'broken/a.ts': 'broken/tsconfig.json', 'legacy/app.js': '', 'packages/app/src/bundled.ts': 'packages/app/tsconfig.json',
  'packages/node-esm/src/g.cts': 'packages/node-esm/tsconfig.json', 'packages/node-esm/src/h.ts': 'packages/node-esm/tsconfig.json',
  'packages/node10/src/main.ts': 'packages/node10/tsconfig.json', 'packages/self/src/use.ts': '',
};

/** Answers that go through build output a package names but the tree lacks (the compiler alone finds nothing there). */
const MAPPED = new Set(['packages/app/src/main.ts:1', ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((l) => `packages/app/src/bundled.ts:${l}`),
  'packages/node10/src/main.ts:1', 'packages/self/src/use.ts:1',
  'packages/node-esm/src/g.cts:1', 'packages/node-esm/src/g.cts:2', 'packages/node-esm/src/h.ts:1', 'packages/node-esm/src/h.ts:2']);

function answersOf(idx: EvidexIndex, path: string): string[] {
  const f = idx.store.fileByPath(path);
  assert.ok(f, `${path} is indexed`);
  return idx.store.imports(f!.fid).map((i) => i.targets.find((t) => t.startsWith('./'))?.slice(2) ?? i.why ?? '(none)');
}

/** What the compiler answers for one statement, on a copy of the tree with the packages linked into node_modules. */
function compilerAnswer(copy: string, file: string, line: number, cfg: string): string | null {
  const abs = join(copy, file);
  const options = cfg === '' ? { allowJs: true, moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.Preserve }
    : ts.getParsedCommandLineOfConfigFile(join(copy, cfg), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!.options;
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.[cm]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const implied = ts.getImpliedNodeFormatForFile(abs, undefined, ts.sys, options);
  const sf = ts.createSourceFile(abs, ts.sys.readFile(abs)!, { languageVersion: ts.ScriptTarget.Latest, impliedNodeFormat: implied }, true, kind);
  let found: ts.StringLiteralLike | null = null;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isStringLiteralLike(n) && sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1 === line) { found = n; return; }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  assert.ok(found, `${file}:${line} has a specifier`);
  const lit = found as ts.StringLiteralLike;
  const mode = ts.getModeForUsageLocation(sf, lit, options);
  const r = ts.resolveModuleName(lit.text, abs, options, ts.sys, undefined, undefined, mode).resolvedModule;
  // The compiler keeps a link's own path for a relative import; the target is where the link leads (docs/tools.md).
  return r ? relative(copy, ts.sys.realpath!(r.resolvedFileName)) : null;
}

test('each statement resolves as the compiler resolves it, under the config that governs its file', async () => {
  const root = join(tmp, 'repo');
  write(root, TREE);
  for (const [link, to] of Object.entries(LINKS)) symlinkSync(to, join(root, link));
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'state') });
  const summary = await idx.refresh();
  for (const [file, want] of Object.entries(EXPECTED)) {
    assert.equal(answersOf(idx, file), want, file);
    assert.is(idx.store.tsResolution(idx.store.fileByPath(file)!.fid)?.cfg, GOVERNING[file], `${file}: governing config`);
  }
  const all = Object.values(EXPECTED).flat();
  const count = (w: string) => all.filter((x) => x === w).length;
  assert.equal(summary.tsImports.unresolved, { external: count('external'), missing: count('missing'), config: count('config') });
  assert.is(summary.tsImports.resolved, all.length - count('external') - count('missing') - count('config'));
  assert.equal(idx.status().tsImports, summary.tsImports);

  // The compiler on a copy, with the workspace packages linked as an install links them.
  const copy = join(tmp, 'copy');
  cpSync(root, copy, { recursive: true, verbatimSymlinks: true });
  for (const [name, dir] of [['@org/ui', 'packages/ui'], ['@org/cond', 'packages/cond'], ['@org/dual', 'packages/dual'], ['@org/legacy', 'packages/legacy'],
    ['@x/lib', 'packages/tsup'], ['@x/untyped', 'packages/tsup-untyped'], ['@x/babel', 'packages/babel'], ['@x/client', 'packages/client'], ['@x/tq', 'packages/tq'], ['@x/xl', 'packages/xl'], ['app', 'packages/app'], ['node-esm', 'packages/node-esm']]) {
    mkdirSync(dirname(join(copy, 'node_modules', name)), { recursive: true });
    symlinkSync(join(copy, dir), join(copy, 'node_modules', name));
  }
  let agree = 0;
  for (const [file, want] of Object.entries(EXPECTED)) {
    const lines = idx.store.imports(idx.store.fileByPath(file)!.fid).map((i) => i.start);
    lines.forEach((line, i) => {
      if (MAPPED.has(`${file}:${line}`)) return;
      const compiler = compilerAnswer(copy, file, line, GOVERNING[file]);
      const ours = ['external', 'missing', 'config'].includes(want[i]) ? null : want[i];
      assert.is(ours, compiler, `${file}:${line}: evidex ${ours}, compiler ${compiler}`);
      agree++;
    });
  }
  console.log(`resolution: ${agree} statements agree with ts.resolveModuleName on the real files (${MAPPED.size} mapped to source: not compared)`);
  await idx.close();
});

test('a self-import through build output rests on the sources it could stand for: creating one resolves it again', async () => {
  const root = join(tmp, 'self');
  write(root, {
    'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'] }),
    'packages/self/package.json': json({ name: '@x/self', exports: { './vendor': { types: './dist/vendor.d.ts', default: './dummy.js' } } }),
    'packages/self/dummy.js': 'export {};\n',
    'packages/self/src/use.ts': 'import { vendor } from "@x/self/vendor";\n',
  });
  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'self-state') });
  await idx.refresh();
  // No source for dist/vendor.d.ts: the compiler goes on to the stub, which exists.
  assert.equal(answersOf(idx, 'packages/self/src/use.ts'), ['packages/self/dummy.js']);
  write(root, { 'packages/self/src/vendor.ts': 'export const vendor = 1;\n' });
  await idx.refresh();
  assert.equal(answersOf(idx, 'packages/self/src/use.ts'), ['packages/self/src/vendor.ts']);
  await idx.close();
});

test('a package name a paths pattern also matches (vuejs/core\'s `@vue/*`): external when a package.json above the file declares it, as an install puts it where the compiler looks next; else missing', async () => {
  const root = join(tmp, 'paths-external');
  const playground = (deps: Record<string, string>): string => json({ name: 'playground', dependencies: deps });
  write(root, {
    'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'], devDependencies: { '@vue/consolidate': '1.0.0' } }),
    'tsconfig.json': json({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', paths: { '@vue/*': ['./packages/*/src'] } }, include: ['packages/*/src'] }),
    'packages/shared/package.json': json({ name: '@vue/shared' }),
    'packages/shared/src/index.ts': 'export const s = 1;\n',
    'packages/playground/package.json': playground({ '@vue/repl': '^4.0.0' }),
    'packages/playground/src/main.ts': 'import "@vue/shared";\nimport "@vue/repl";\nimport "@vue/consolidate";\nimport "@vue/sharde";\n',
  });
  // The compiler, with what the package.json files declare installed: `paths` finds no file, node_modules does.
  const copy = join(tmp, 'paths-external-copy');
  cpSync(root, copy, { recursive: true });
  write(copy, { 'packages/playground/node_modules/@vue/repl/index.d.ts': 'export {};\n', 'node_modules/@vue/consolidate/index.d.ts': 'export {};\n' });
  const options = ts.getParsedCommandLineOfConfigFile(join(copy, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!.options;
  const from = join(copy, 'packages/playground/src/main.ts');
  const compiler = ['@vue/repl', '@vue/consolidate', '@vue/sharde'].map((s) => ts.resolveModuleName(s, from, options, ts.sys).resolvedModule?.isExternalLibraryImport ?? null);
  assert.equal(compiler, [true, true, null]);

  const idx = await openEvidexIndex(root, { stateDir: join(tmp, 'paths-external-state') });
  try {
    await idx.refresh();
    assert.equal(answersOf(idx, 'packages/playground/src/main.ts'), ['packages/shared/src/index.ts', 'external', 'external', 'missing']);
    assert.equal(idx.status().tsImports?.unresolved, { external: 2, missing: 1, config: 0 });
    // The declaration goes: the alias is all that is left, written wrong.
    write(root, { 'packages/playground/package.json': playground({}) });
    await idx.refresh();
    assert.equal(answersOf(idx, 'packages/playground/src/main.ts'), ['packages/shared/src/index.ts', 'missing', 'external', 'missing']);
    write(root, { 'packages/playground/package.json': playground({ '@vue/repl': '^4.0.0' }) });
    await idx.refresh();
    assert.equal(answersOf(idx, 'packages/playground/src/main.ts'), ['packages/shared/src/index.ts', 'external', 'external', 'missing']);
  } finally {
    await idx.close();
  }
});

test.after(() => cleanupTemp());
test.run();
