// The built-in secret list (indexer/discover/secrets.ts): docs/tools.md prints
// exactly it; every credential file name of issue 30 is a secret at any depth
// and in any ASCII case, while look-alikes stay indexed; and a file renamed
// into a secret name on a running daemon leaves every answer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { RepoRules } from '../indexer/discover/rules.js';
import { walkRepo } from '../indexer/discover/walk.js';
import { SECRET_NAMES, secretListMarkdown } from '../indexer/discover/secrets.js';
import { Methods } from '../protocol/messages.js';
import { fixtureCopy, isNotIndexed, startWatched, stopWatched, waitFor, type TestDaemon } from './helpers/daemon.js';
import { cleanupTemp, PROJECT_ROOT, tempDir, write } from './helpers/fs.js';
import type { Client } from '../client/connection.js';
import { RpcError } from '../protocol/jsonrpc.js';

test.after(() => cleanupTemp());

/** Files by these names hold credentials (issue 30 point 2 and the well-known additions). */
const CREDENTIAL_FILES = [
  '.git-credentials', '.pgpass', '.htpasswd', '.aws/credentials', '.docker/config.json', '.kube/config', '.envrc',
  'prod.tfvars', 'terraform.tfstate', 'terraform.tfstate.backup', 'release.keystore', 'app.jks',
  'id_rsa', 'id_rsa.pub', 'id_dsa', 'id_ecdsa', 'id_ecdsa_sk', 'id_ed25519', 'id_ed25519_sk', 'server.pem', 'tls.key', 'cert.p12', 'cert.pfx',
  'putty.ppk', '.npmrc', '.pypirc', '.netrc', '.my.cnf', 'credentials.json', 'service-account-prod.json', '.vault-token',
  'secrets.yml', 'secrets.yaml', '.s3cfg', '.boto', '.dockercfg', '.terraformrc', 'terraform.rc', '.gem/credentials',
  '.cargo/credentials', '.cargo/credentials.toml', '.config/gh/hosts.yml', '.env', '.env.test',
  // A tree such as /etc, or a container image's root filesystem checked in
  'etc/shadow', 'etc/shadow-', 'etc/gshadow', 'etc/gshadow-', 'etc/master.passwd', 'vault.kdbx',
];
/** Names close to those that hold no credentials as a rule: they stay indexed. */
const LOOK_ALIKES = [
  'credentials.py', 'aws/credentials', '.aws/config', 'docker/config.json', '.docker/daemon.json', 'kube/config', '.kube/config.yaml',
  'keys.py', 'envrc.md', 'tfvars.go', 'secrets.py', 'pgpass.c', 'gh/hosts.yml', '.config/gh/config.yml', 'service.json', 'env.py',
  'etc/passwd', 'etc/group', 'shadow.py', 'shadows.ts', 'shadow/index.ts', 'kdbx.md',
];

test('docs/tools.md prints the secret list exactly as the code holds it', () => {
  const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'tools.md'), 'utf8');
  const m = /<!-- secret-list:start[^\n]*-->\n([\s\S]*?)<!-- secret-list:end -->/.exec(doc);
  assert.ok(m, 'docs/tools.md has the secret-list markers');
  assert.fixture(m![1].trimEnd(), secretListMarkdown(), 'paste secretListMarkdown() between the markers');
  assert.is(new Set(SECRET_NAMES.map((s) => s.pattern)).size, SECRET_NAMES.length, 'no pattern twice');
});

test('credential files are secrets at any depth and in any case; look-alikes are indexed', async () => {
  const root = tempDir('secret-list');
  const files: Record<string, string> = {};
  for (const f of [...CREDENTIAL_FILES, ...LOOK_ALIKES]) { files[f] = 'x'; files[`deep/er/${f}`] = 'x'; }
  files['UP/.AWS/CREDENTIALS'] = 'x';
  files['up/ID_RSA'] = 'x';
  write(root, files);
  const rules = await RepoRules.load(root, { git: false });
  for (const f of CREDENTIAL_FILES) {
    assert.ok(rules.isSecret(f), f);
    assert.ok(rules.isSecret(`deep/er/${f}`), `deep/er/${f}`);
  }
  for (const f of LOOK_ALIKES) assert.not.ok(rules.isSecret(f) || rules.isSecret(`deep/er/${f}`), f);
  const walked = (await walkRepo(root, rules)).files.map((f) => f.path);
  const expected = LOOK_ALIKES.flatMap((f) => [f, `deep/er/${f}`]).sort();
  assert.equal(walked, expected);
});

let d: TestDaemon | undefined;
let c: Client | undefined;
test.after.each(async () => { await stopWatched(d, c); d = c = undefined; });

test('a file renamed into a secret name on a running daemon leaves every answer, and comes back renamed out', async () => {
  const root = fixtureCopy();
  write(root, { 'ops/deploy.txt': 'RENAMED_SECRET_TOKEN = hunter2\n' });
  ({ d, c } = await startWatched(root));
  const hits = async (): Promise<number> => (await c!.request(Methods.toolsCall, { name: 'search_code', arguments: { query: 'RENAMED_SECRET_TOKEN' } })).total;
  await waitFor('indexed under its plain name', async () => (await hits()) === 1, 30_000);
  renameSync(join(root, 'ops/deploy.txt'), join(root, 'ops/prod.tfvars'));
  await waitFor('gone from search', async () => (await hits()) === 0, 30_000);
  assert.ok(await isNotIndexed(c, 'ops/deploy.txt'));
  const refusal = await c.request(Methods.toolsCall, { name: 'read_evidence', arguments: { path: 'ops/prod.tfvars', start_line: 1 } })
    .then(() => 'answered', (e: RpcError) => (e.data as { code?: string }).code);
  assert.is(refusal, 'secret_denied');
  renameSync(join(root, 'ops/prod.tfvars'), join(root, 'ops/deploy.txt'));
  await waitFor('back in search', async () => (await hits()) === 1, 30_000).catch((e) => { throw new Error(`${(e as Error).message}\n${d!.log()}`); });
});

test.run();
