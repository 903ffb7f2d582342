// A config is read as it is, whatever lookup first asks for it. Dropped by a
// change and then first met during a bare specifier's lookup (a package
// imported by name, whose build output is not in the tree), it was parsed
// with that lookup's view of its own package: its missing output folders
// were looked up through the package's build layout, which reads the same
// config, not yet kept, again and again (a trpc checkout: one tsconfig parsed
// 7,749 times in one update). Every config is parsed once per change here,
// never inside its own parse, and the update resolves as a cold build does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidexIndex } from '../indexer/index.js';
import { Configs } from '../indexer/typescript/configs.js';
import { TsResolver } from '../indexer/typescript/resolve.js';
import type { FolderEntries, RepoView } from '../indexer/typescript/view.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';

test.after(() => cleanupTemp());

/** Counts Configs' parses (and those begun inside a parse of the same config) while `fn` runs. */
async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; parses: Map<string, number>; nested: number }> {
  const proto = Configs.prototype as unknown as { parse(rel: string): unknown };
  const orig = proto.parse;
  const parses = new Map<string, number>();
  const active: string[] = [];
  let nested = 0;
  proto.parse = function (this: unknown, rel: string) {
    if (active.includes(rel)) nested++;
    parses.set(rel, (parses.get(rel) ?? 0) + 1);
    active.push(rel);
    try { return orig.call(this, rel); } finally { active.pop(); }
  };
  try { return { result: await fn(), parses, nested }; } finally { proto.parse = orig; }
}

const pkg = (name: string, version: number) => ({
  [`packages/${name}/package.json`]: JSON.stringify({ name, version: `1.0.${version}`, main: './dist/index.js', types: './dist/index.d.ts', exports: { '.': './dist/index.js', './sub': './dist/sub/index.js' } }),
  [`packages/${name}/tsconfig.json`]: JSON.stringify({ compilerOptions: { outDir: './dist', rootDir: './src', declaration: true, strict: version > 0 }, include: ['src', 'dist/generated'] }),
  [`packages/${name}/src/index.ts`]: `export const ${name}${version} = ${version};\n`,
  [`packages/${name}/src/sub/index.ts`]: `export const ${name}Sub = 1;\n`,
});

test('an update that drops every config parses each once or twice, not over and over, and resolves as it does', async () => {
  const root = join(realpathSync(tempDir('work')), 'repo');
  const tree = (v: number) => ({
    'package.json': JSON.stringify({ name: 'root', private: true, workspaces: ['packages/*'] }),
    'tsconfig.json': JSON.stringify({ files: [], references: [{ path: './packages/a' }, { path: './packages/b' }, { path: './packages/c' }] }),
    ...pkg('a', v), ...pkg('b', v), ...pkg('c', v),
    'packages/c/src/use.ts': `import { a${v} } from 'a';\nimport { aSub } from 'a/sub';\nimport { b${v} } from 'b';\nexport const both = [a${v}, aSub, b${v}];\n`,
  });
  write(root, tree(0));
  const handle = await openEvidexIndex(root, { stateDir: tempDir('state') });
  try {
    await handle.refresh();
    const next = tree(1);
    write(root, next);
    const { parses, nested } = await counted(() => handle.update(Object.keys(next)));
    assert.is(nested, 0, 'no config parsed inside its own parse');
    assert.ok(parses.size >= 3, `the configs were read again: ${JSON.stringify([...parses])}`);
    for (const [rel, n] of parses) assert.ok(n <= 2, `${rel} parsed ${n} times (at most twice: the tree before the update, when it moves packages, and after)`);

    const cold = await openEvidexIndex(root, { stateDir: tempDir('cold') });
    try {
      await cold.refresh();
      for (const module of ['a', 'b', 'a/sub', 'packages/a/src/index.ts']) {
        const [u, c] = [await handle.runTool('find_importers', { module_name: module }), await cold.runTool('find_importers', { module_name: module })];
        assert.equal(u.evidence, c.evidence, `importers of ${module}: the update's as the cold build's`);
        assert.ok(u.total >= 1, `${module} is imported`);
      }
    } finally {
      await cold.close();
    }
  } finally {
    await handle.close();
  }
});

/** A tree of files in memory, as resolution sees the repository. */
function memoryView(files: Record<string, string>): RepoView {
  const dirs = new Set<string>(['']);
  for (const f of Object.keys(files)) for (let i = f.indexOf('/'); i > 0; i = f.indexOf('/', i + 1)) dirs.add(f.slice(0, i));
  const under = (dir: string, rel: string) => (dir === '' ? !rel.includes('/') : rel.startsWith(`${dir}/`) && !rel.slice(dir.length + 1).includes('/'));
  const name = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
  return {
    isFile: (rel) => rel in files,
    isDir: (rel) => dirs.has(rel),
    text: (rel) => files[rel],
    entries: (dir): FolderEntries => ({
      files: Object.keys(files).filter((f) => under(dir, f)).map(name),
      directories: [...dirs].filter((d) => d !== '' && under(dir, d)).map(name),
    }),
    filesNamed: (n) => Object.keys(files).filter((f) => name(f) === n),
    realPath: (rel) => rel,
    linkedTo: (rel) => rel,
  };
}

test('a config first asked for during a bare lookup (its package\'s output not in the tree) is parsed once, outside it', async () => {
  // As trpc's: the root is a package too, its build output not in the tree, and the package's config extends the root's.
  const files = {
    'package.json': JSON.stringify({ name: 'root', main: './dist/index.js', workspaces: ['packages/*'] }),
    'tsconfig.json': JSON.stringify({ compilerOptions: { outDir: './dist', strict: true }, include: ['packages'] }),
    ...pkg('a', 0),
    'packages/a/tsconfig.json': JSON.stringify({ extends: '../../tsconfig.json', include: ['src', 'test'], compilerOptions: { types: ['vitest/globals'] } }),
  };
  const resolver = new TsResolver('/nowhere/repo', memoryView(files));
  const inner = resolver as unknown as { host: { inBareLookup<T>(bare: boolean, fn: () => T): T }; configs: Configs };
  const { result, parses, nested } = await counted(async () => inner.host.inBareLookup(true, () => inner.configs.get('packages/a/tsconfig.json')));
  assert.is(nested, 0, 'not parsed inside its own parse');
  assert.equal([...parses], [['packages/a/tsconfig.json', 1]]);
  assert.equal([...result!.fileNames].sort(), ['packages/a/src/index.ts', 'packages/a/src/sub/index.ts'], 'its files as they are in the tree');
});

test.run();
