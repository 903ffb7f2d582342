// A file the index leaves out is not "missing" (review of Effect-TS/effect:
// `internal/httpApiScalar.ts`, 3.1 MiB, over the size cap). find_importers
// given its path is refused as read_evidence refuses it, both saying why —
// over the size cap, binary — and with no near miss of another file; a
// secret or ignored file gets exactly what read_evidence answers for it. A
// statement the compiler would resolve to such a file stays unresolved
// (counts unchanged), and `index/unresolved` and `evidex index --unresolved`
// say which file it reaches and why that file is left out. Real files, a
// real LMDB index, the real CLI.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { openEvidexIndex } from '../indexer/index.js';
import type { ToolResult } from '../indexer/query/schemas.js';
import { evidex } from './helpers/cli.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { cleanupTemp, tempDir, write } from './helpers/fs.js';

test.after(cleanupTemp);

/** Over the 2 MiB cap: 2.2 MiB of a TypeScript file. */
const BIG = `export const scalar = "${'s'.repeat(2_300_000)}";\n`;

const FILES = {
  '.gitignore': 'build/\n*.log.ts\n',
  'src/gen.log.ts': 'export const gen = 1;\n',
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', allowImportingTsExtensions: true, noEmit: true } }),
  'src/internal/scalar.ts': BIG,
  'huge.ts': BIG,
  'src/blob.ts': Buffer.from('export const blob = 1;\0\n'),
  'src/keys.ts': 'export const key = 1;\n',
  'build/out.ts': 'export const out = 1;\n',
  'src/Scalar.ts': [
    'import * as internal from "./internal/scalar.ts";',
    'import { blob } from "./blob.js";',
    'import { out } from "../build/out";',
    'import { key } from "./keys";',
    'import { nope } from "./nope";',
    'export const all = [internal, blob, out, key, nope];',
    '',
  ].join('\n'),
};

/** The refusal a call gets, as `code: message` (or the answer's total when it is answered). */
async function refusal(idx: { runTool(n: unknown, a: unknown): ToolResult | Promise<ToolResult> }, name: string, args: Record<string, unknown>): Promise<string> {
  try {
    return `answered ${(await idx.runTool(name, args)).total}`;
  } catch (e) {
    const err = e as { code?: string; message: string };
    return `${err.code}: ${err.message}`;
  }
}

test('find_importers of a file left out is refused as read_evidence is, saying why; a secret or ignored one as read says; before the start-up walk too', async () => {
  const root = tempDir('leftout-targets');
  write(root, FILES);
  const stateDir = join(tempDir('leftout-targets-state'), 's');
  let idx = await openEvidexIndex(root, { stateDir, extraSecrets: ['keys.ts'] });
  try {
    await idx.refresh();
    const big = 'not_indexed: "src/internal/scalar.ts" is left out of the index: over the size cap (2.2 MiB > 2 MiB)';
    assert.is(await refusal(idx, 'read_evidence', { path: 'src/internal/scalar.ts', start_line: 1 }), big);
    assert.is(await refusal(idx, 'find_importers', { module_name: 'src/internal/scalar.ts' }), big, 'not 0 with another file suggested');
    assert.is(await refusal(idx, 'find_importers', { module_name: './src/internal/scalar.ts' }), big);
    // At the root, without a "/": the index knows it left that file out, so it is the file, not a module name.
    assert.is(await refusal(idx, 'find_importers', { module_name: 'huge.ts' }), big.replace('src/internal/scalar.ts', 'huge.ts'));
    const binary = 'not_indexed: "src/blob.ts" is left out of the index: binary (a NUL byte in its first 8 KiB)';
    assert.is(await refusal(idx, 'read_evidence', { path: 'src/blob.ts', start_line: 1 }), binary);
    assert.is(await refusal(idx, 'find_importers', { module_name: 'src/blob.ts' }), binary);
    // A file in an ignored folder, an ignored file and a secret: what read_evidence answers, word for word, and nothing more.
    for (const [path, said] of [
      ['build/out.ts', 'not_indexed: "build/out.ts" is in a folder the index leaves out: .gitignore:1 ignores "build/"'],
      ['src/gen.log.ts', 'not_indexed: "src/gen.log.ts" is not in the index (missing, ignored, binary or too large)'],
      ['src/keys.ts', 'secret_denied: path "src/keys.ts" refused: it is a secret file, which evidex never reads'],
    ]) {
      const read = await refusal(idx, 'read_evidence', { path, start_line: 1 });
      assert.is(read, said);
      assert.is(await refusal(idx, 'find_importers', { module_name: path }), read);
    }
    assert.is(await refusal(idx, 'find_importers', { module_name: 'src/keys.ts' }), 'secret_denied: path "src/keys.ts" refused: it is a secret file, which evidex never reads');
    // A path with nothing there is still a package subpath, answered 0, as before.
    assert.is(await refusal(idx, 'find_importers', { module_name: 'src/nope.ts' }), 'answered 0');
  } finally { await idx.close(); }

  // Opened again on the complete index, asked before any refresh has walked the tree: the refusal still says why.
  idx = await openEvidexIndex(root, { stateDir, extraSecrets: ['keys.ts'] });
  try {
    assert.is(idx.builder.leftOutRecorded, false);
    assert.is(await refusal(idx, 'find_importers', { module_name: 'src/internal/scalar.ts' }),
      'not_indexed: "src/internal/scalar.ts" is left out of the index: over the size cap (2.2 MiB > 2 MiB)');
  } finally { await idx.close(); }
});

test('a statement reaching a file left out stays unresolved, and says which file and why; a secret, ignored or absent one does not', async () => {
  const root = tempDir('leftout-unresolved');
  write(root, FILES);
  const idx = await openEvidexIndex(root, { stateDir: join(tempDir('leftout-unresolved-state'), 's'), extraSecrets: ['keys.ts'] });
  try {
    await idx.refresh();
    const r = await idx.unresolvedImports({ reasons: ['missing'], limit: 20, offset: 0 });
    assert.equal(r.counts, { missing: 5, config: 0, external: 0 }, 'counts unchanged: still unresolved');
    assert.equal(idx.status().tsImports.unresolved.missing, 5);
    assertEvidenceChecks(root, r.items);
    assert.equal(r.items.map((e) => [e.name, e.reaches_left_out ?? null]), [
      ['./internal/scalar.ts', { path: 'src/internal/scalar.ts', reason: 'tooLarge' }],
      ['./blob.js', { path: 'src/blob.ts', reason: 'binary' }],
      ['../build/out', null],
      ['./keys', null],
      ['./nope', null],
    ]);
  } finally { await idx.close(); }

  // As a person reads it: the line before the statement names the file and why, from where they stand.
  const run = await evidex(['index', '--unresolved', '--repo', root], { cwd: join(root, 'src'), home: tempDir('leftout-home'), env: { NO_COLOR: '1' } });
  assert.is(run.code, 0, run.stderr);
  const listed = run.stdout.slice(run.stdout.indexOf('#   by extension'));
  assert.is(listed.split('\n').slice(1, 4).join('\n'), [
    '# reaches internal/scalar.ts, a file left out of the index: over the size cap',
    'Scalar.ts:1: import * as internal from "./internal/scalar.ts";',
    '# reaches blob.ts, a file left out of the index: binary',
  ].join('\n'));
  // (No secret is configured here: src/keys.ts is indexed, and its statement resolves.)
  assert.match(run.stdout, /^Scalar\.ts:1: .*\n# reaches blob\.ts, .*\nScalar\.ts:2: .*\nScalar\.ts:3: import \{ out \} from "\.\.\/build\/out";\nScalar\.ts:5: /m, run.stdout);
});

test.run();
