// Exclusions said (issue 26) and names that are not UTF-8 (issue 30, point 7):
// the index counts what it leaves out by reason, a file whose name is not
// UTF-8 is one of them (never dropped without a word), a name that merely
// holds U+FFFD is indexed, and through a real CLI process `evidex search`
// names the left-out files its query appears in — names and reasons only —
// while `evidex daemon status` prints the counts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidexIndex } from '../indexer/index.js';
import { noLeftOut } from '../indexer/discover/left-out.js';
import { formatLeftOut } from '../client/daemon-report.js';
import { Methods } from '../protocol/messages.js';
import { connect } from '../client/connection.js';
import { fixtureCopy, isNotIndexed, waitFor } from './helpers/daemon.js';
import { cleanupTemp, PROJECT_ROOT, tempDir, write } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const home = tempDir('leftout-home');
const BAD_NAME = Buffer.concat([Buffer.from('bad'), Buffer.from([0xff]), Buffer.from('.py')]);

function evidex(cwd: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, EVIDEX_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', NO_COLOR: '1' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('the index counts left-out files by reason; a name not UTF-8 is one, a name holding U+FFFD is indexed', async () => {
  const root = tempDir('leftout');
  write(root, {
    '.gitignore': 'build/\n*.log\n',
    '.env.test': 'TOKEN=1\n',
    'conf/.aws/credentials': 'key\n',
    'big.txt': 'y'.repeat(3000),
    'blob.bin': Buffer.from([0x61, 0, 0x62]),
    'build/out.js': 'x\n',
    'run.log': 'log\n',
    'ok\uFFFDname.py': 'REPLACEMENT_CHAR_NAME = 1\n',
    'keep.py': 'KEEP = 1\n',
    'keys/id_rsa': 'PRIVATE\n',
    'tls/server.pem': 'PRIVATE\n',
  });
  writeFileSync(Buffer.from(join(root, BAD_NAME.toString('latin1')), 'latin1'), 'NOT_UTF8_NAME = 1\n');
  const index = await openEvidexIndex(root, { stateDir: tempDir('state'), maxFileBytes: 2000 });
  try {
    await index.refresh();
    assert.equal(index.status().leftOut, { ...noLeftOut(), secret: 4, tooLarge: 1, binary: 1, ignored: 2, nameNotUtf8: 1 });
    // The first three secrets by path are named beside the count (as a refusal to read one names it), the fourth counted.
    assert.equal(index.status().secretPaths, ['.env.test', 'conf/.aws/credentials', 'keys/id_rsa']);
    assert.is(formatLeftOut(index.status().leftOut, index.status()).plain,
      '4 secret (.env.test, conf/.aws/credentials, keys/id_rsa and 1 more) · 1 over the size cap · 1 binary · 2 ignored · 1 name not UTF-8');
    assert.equal((await index.leftOutByName('bad', { limit: 5 })).items, [{ path: 'bad\\xff.py', reason: 'nameNotUtf8' }]);
    assert.equal((await index.leftOutByName('CRED', { limit: 5 })).items, [{ path: 'conf/.aws/credentials', reason: 'secret' }]);
    assert.is((await index.leftOutByName('CRED', { limit: 5, caseSensitive: true })).total, 0);
    assert.is((await index.leftOutByName('e', { limit: 5, pathPrefix: 'conf/' })).total, 1);
    const hits = await index.runTool('search_code', { query: 'REPLACEMENT_CHAR_NAME' });
    assert.equal(hits.evidence.map((e) => e.path), ['ok\uFFFDname.py']);
    assert.is((await index.runTool('search_code', { query: 'NOT_UTF8_NAME' })).total, 0);
  } finally { await index.close(); }
});

test('through the CLI: search says which left-out files it could not search, daemon status counts them, live', async () => {
  const repo = fixtureCopy({ git: true });
  try {
    const s = evidex(repo, ['search', '.env']);
    assert.is(s.code, 0, s.stderr);
    assert.match(s.stderr, /^not searched: \.env \(secret\)$/m);
    const secret = readFileSync(join(repo, '.env'), 'utf8');
    for (const line of secret.trim().split('\n')) assert.not.ok(`${s.stdout}${s.stderr}`.includes(line.split('=')[1]), 'no content of the secret');
    assert.not.match(evidex(repo, ['search', 'COLLECTION_NAME']).stderr, /not searched/, 'said only when a left-out name matches');
    assert.match(evidex(repo, ['search', 'logo']).stderr, /^not searched: assets\/logo\.png \(binary\)$/m);

    // A daemon started on the complete index answers during its catch-up: the line still comes.
    evidex(repo, ['daemon', 'stop']);
    assert.match(evidex(repo, ['search', '.env']).stderr, /^not searched: \.env \(secret\)$/m, 'said by a daemon in its catch-up');

    const status = evidex(repo, ['daemon', 'status']);
    assert.match(status.stdout, /^left out {5}2 secret \(\.env, config\/server\.pem\) · 1 binary · 2 ignored$/m, status.stdout);
    // `evidex index` says the same, in the same words: through the daemon here, in its own process below.
    const viaDaemon = evidex(repo, ['index']);
    assert.match(viaDaemon.stdout, /\(daemon\)\n[^]*^ {2}left out 2 secret \(\.env, config\/server\.pem\) · 1 binary · 2 ignored$/m, viaDaemon.stdout);
    // From a subfolder, named as paths from there (as `evidex read` there takes them); never a line of their content.
    const fromSrc = evidex(join(repo, 'src'), ['index']);
    assert.match(fromSrc.stdout, /^ {2}left out 2 secret \(\.\.\/\.env, \.\.\/config\/server\.pem\) · /m, fromSrc.stdout);
    // `daemon status` there too: it printed them from the root (.env), which `evidex read` in src/ does not take.
    const statusFromSrc = evidex(join(repo, 'src'), ['daemon', 'status']);
    assert.match(statusFromSrc.stdout, /^left out {5}2 secret \(\.\.\/\.env, \.\.\/config\/server\.pem\) · /m, statusFromSrc.stdout);
    assert.match(evidex(join(repo, 'src'), ['read', '../config/server.pem']).stderr, /server\.pem/);
    for (const file of ['.env', 'config/server.pem']) {
      for (const line of readFileSync(join(repo, file), 'utf8').split('\n').filter((l) => l.length > 8)) assert.not.ok(fromSrc.stdout.includes(line), `no content of ${file}`);
    }

    // Made and removed while the daemon runs: the watcher's updates keep the count.
    const c = await connect(repo, { env: { ...process.env, EVIDEX_HOME: home } });
    try {
      const count = async (): Promise<number> => (await c.request(Methods.indexStatus)).index.leftOut.nameNotUtf8;
      const bad = Buffer.from(join(repo, 'src', BAD_NAME.toString('latin1')), 'latin1');
      writeFileSync(bad, 'x = 1\n');
      await waitFor('the name counted', async () => (await count()) === 1);
      assert.match(evidex(repo, ['search', 'bad']).stderr, /^not searched: src\/bad\\xff\.py \(name not UTF-8\)$/m);
      unlinkSync(bad);
      await waitFor('the name forgotten', async () => (await count()) === 0);

      // A file renamed into a name .gitignore matches (*.log) leaves the index and counts as ignored at once; renamed back, the reverse.
      const counts = async () => (await c.request(Methods.indexStatus)).index.leftOut;
      const design = join(repo, 'notes', 'design.txt');
      renameSync(design, `${design}.log`);
      await waitFor('the renamed file counted ignored', async () => (await counts()).ignored === 3 && (await isNotIndexed(c, 'notes/design.txt')));
      renameSync(`${design}.log`, design);
      await waitFor('counted no more', async () => (await counts()).ignored === 2 && !(await isNotIndexed(c, 'notes/design.txt')));
      // Made and deleted beside indexed files: counted, then not.
      writeFileSync(join(repo, 'src', 'run.log'), 'log\n');
      await waitFor('a new ignored file counted', async () => (await counts()).ignored === 3);
      unlinkSync(join(repo, 'src', 'run.log'));
      await waitFor('the deleted ignored file forgotten', async () => (await counts()).ignored === 2);
      assert.equal(await counts(), { ...noLeftOut(), secret: 2, binary: 1, ignored: 2 });
    } finally { await c.close(); }
    evidex(repo, ['daemon', 'stop']);
    const inProcess = evidex(repo, ['index']);
    assert.match(inProcess.stdout, /\(in-process\)\n[^]*^ {2}left out 2 secret \(\.env, config\/server\.pem\) · 1 binary · 2 ignored$/m, inProcess.stdout);
    const json = JSON.parse(evidex(repo, ['index', '--json']).stdout);
    assert.equal(json.leftOut, { ...noLeftOut(), secret: 2, binary: 1, ignored: 2 });
    assert.equal(json.secretPaths, ['.env', 'config/server.pem']);
  } finally {
    evidex(repo, ['daemon', 'stop']);
  }
});

test.after(() => cleanupTemp());
test.run();
