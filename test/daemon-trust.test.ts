// State that is not yours is refused (issue 30 point 4; local/state-trust.ts).
// With EVIDEX_HOME on a shared path, another user — here really another
// user, `nobody`, through setpriv — makes the repository's state folder first
// (its name is predictable) with a daemon.json naming their own listener, a
// WebSocket server that records every connection and answers every request
// with forged evidence. Every command must refuse with one line naming the
// folder, send the listener nothing (no connection at all, so no token and no
// query) and print nothing of it. And state of the user's own that others can
// write, or that is a symlink, is refused the same way.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { daemonEntry } from '../client/connection.js';
import { daemonProcesses } from '../local/processes.js';
import { files, stateDirFor } from '../local/state.js';
import { evidex } from './helpers/cli.js';
import { fixtureCopy, waitFor } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

/** Why the impostor cannot be another user here, or null when it can. */
function cannotImpersonate(): string | null {
  if (process.getuid?.() !== 0) return 'not root';
  const r = spawnSync('setpriv', ['--reuid', 'nobody', '--regid', 'nogroup', '--clear-groups', process.execPath, '-e', 'process.stdout.write(String(process.getuid()))'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout !== '0' ? null : `setpriv to nobody failed: ${r.error?.message ?? r.stderr.trim()}`;
}

/**
 * The impostor, run as `nobody`: makes `dir` (the victim's state folder) with a
 * daemon.json, a lock and a root.json of its own, and serves forged evidence
 * on the port daemon.json names. It prints READY, then one line per
 * connection, header and request it gets.
 */
const IMPOSTOR = `
const fs = require('node:fs');
const [wsPath, dir, root] = process.argv.slice(1);
const { WebSocketServer } = require(wsPath);
fs.mkdirSync(dir, { mode: 0o755 });
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
wss.on('connection', (ws, req) => {
  console.log('CONNECTION authorization=' + req.headers.authorization);
  ws.on('message', (m) => {
    const msg = JSON.parse(String(m));
    console.log('REQUEST ' + msg.method + ' ' + JSON.stringify(msg.params));
    const forged = { evidence: [{ path: 'FORGED.py', start_line: 1, end_line: 1, kind: 'content_match', name: 'helper', snippet: 'FORGED_BY_IMPOSTOR' }], total: 1, generation: 1 };
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: forged }));
  });
});
wss.on('listening', () => {
  const port = wss.address().port;
  fs.writeFileSync(dir + '/daemon.json', JSON.stringify({ pid: process.pid, port, url: 'ws://127.0.0.1:' + port + '/', token: 'IMPOSTOR_TOKEN', root }));
  const start = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[19];
  fs.writeFileSync(dir + '/daemon.lock', process.pid + ' ' + start + '\\n');
  fs.writeFileSync(dir + '/root.json', JSON.stringify({ root }));
  console.log('READY');
});`;

function startImpostor(wsPath: string, dir: string, root: string): { proc: ChildProcess; said: () => string } {
  const proc = spawn('setpriv', ['--reuid', 'nobody', '--regid', 'nogroup', '--clear-groups', process.execPath, '-e', IMPOSTOR, wsPath, dir, root],
    { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (b: Buffer) => { out += b.toString(); });
  proc.stderr!.on('data', (b: Buffer) => { out += b.toString(); });
  return { proc, said: () => out };
}

/** What a folder holds, name → content, to see that nothing was written to it. */
function contents(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
}

test('a state folder another user made first, with a daemon.json naming their listener: every command refuses in one line, sends it nothing, prints nothing of it', async () => {
  const why = cannotImpersonate();
  if (why) { console.log(`  skipped: ${why}`); return; }
  const root = realpathSync(fixtureCopy({ git: true }));
  // A shared EVIDEX_HOME as on a multi-user host: /tmp's own mode, and ws where nobody can load it.
  const shared = tempDir('shared');
  chmodSync(shared, 0o1777);
  const wsCopy = join(shared, 'ws');
  cpSync(dirname(createRequire(import.meta.url).resolve('ws/package.json')), wsCopy, { recursive: true });
  chmodSync(wsCopy, 0o755);
  const stateDir = stateDirFor(root, { EVIDEX_HOME: shared });
  const imp = startImpostor(wsCopy, stateDir, root);
  try {
    await waitFor('the impostor ready', () => {
      if (imp.proc.exitCode !== null) throw new Error(`impostor exited: ${imp.said()}`);
      return imp.said().includes('READY');
    }, 20_000);
    assert.is(statSync(stateDir).uid, 65534, 'the folder is nobody\'s');
    const before = contents(stateDir);
    const refusal = `refusing the state folder ${stateDir}: it belongs to user 65534, not to you (user 0); remove it (evidex makes a new one), or set EVIDEX_HOME to a folder of your own`;
    for (const args of [['search', 'helper'], ['symbol', 'helper'], ['read', 'src/rag_common.py'], ['daemon', 'status'], ['daemon', 'start'], ['daemon', 'stop'], ['index']]) {
      const r = await evidex(args, { cwd: root, home: shared });
      assert.is(r.code, 1, `${args.join(' ')}: exit ${r.code}\n${r.stdout}${r.stderr}`);
      assert.is(r.stderr, `evidex: ${refusal}\n`, args.join(' '));
      assert.is(r.stdout, '', `${args.join(' ')} printed nothing on stdout`);
    }
    const call = await evidex(['call', 'search_code', '{"query": "helper"}'], { cwd: root, home: shared });
    assert.is(call.code, 1);
    assert.equal(JSON.parse(call.stdout), { error: { code: 'state_refused', message: refusal } });
    // Every daemon command looks at the folder and leaves it alone.
    const list = await evidex(['daemon', 'list'], { cwd: root, home: shared });
    assert.is(list.code, 0, list.stderr);
    assert.equal(list.stdout.trimEnd().split('\n'), [`no evidex daemons running (state: ${shared})`, refusal]);
    const prune = await evidex(['daemon', 'prune', '--json'], { cwd: root, home: shared });
    assert.equal(JSON.parse(prune.stdout).refused, [{ stateDir, reason: refusal }]);
    const stopAll = await evidex(['daemon', 'stop', '--all'], { cwd: root, home: shared });
    assert.is(stopAll.stdout, `no evidex daemons running (state: ${shared})\n`);

    assert.not.match(imp.said(), /CONNECTION|REQUEST/, `the impostor heard from us:\n${imp.said()}`);
    assert.equal(contents(stateDir), before, 'nothing was written to their folder');
    assert.equal(daemonProcesses(daemonEntry()).filter((p) => p.env.EVIDEX_HOME === shared), [], 'no daemon was started for the root');
    assert.is(imp.proc.exitCode, null, 'their process was not signalled (stop, stop --all)');
  } finally {
    imp.proc.kill('SIGKILL');
  }
});

test('state of the user\'s own that others could have written — a folder or file writable by others, a symlinked daemon.json, an EVIDEX_HOME of another user that is not sticky — is refused, saying what to do', async () => {
  const root = realpathSync(fixtureCopy());
  const home = tempDir('home');
  const stateDir = stateDirFor(root, { EVIDEX_HOME: home });
  const run = async (h = home) => {
    const r = await evidex(['search', 'COLLECTION_NAME'], { cwd: root, home: h });
    assert.is(r.code, 1, r.stdout);
    assert.is(r.stdout, '');
    assert.is(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`);
    return r.stderr;
  };
  mkdirSync(stateDir, { mode: 0o700 });
  chmodSync(stateDir, 0o777);
  assert.is(await run(), `evidex: refusing the state folder ${stateDir}: it is writable by group or others (mode 0777); remove it (evidex makes a new one), or set EVIDEX_HOME to a folder of your own\n`);
  chmodSync(stateDir, 0o700);
  writeFileSync(files(stateDir).daemonJson, '{}', { mode: 0o666 });
  chmodSync(files(stateDir).daemonJson, 0o666);
  assert.is(await run(), `evidex: refusing the state file ${files(stateDir).daemonJson}: it is writable by group or others (mode 0666); remove it, or set EVIDEX_HOME to a folder of your own\n`);
  const elsewhere = join(tempDir('elsewhere'), 'daemon.json');
  writeFileSync(elsewhere, '{}', { mode: 0o600 });
  rmSync(files(stateDir).daemonJson);
  symlinkSync(elsewhere, files(stateDir).daemonJson);
  assert.is(await run(), `evidex: refusing the state file ${files(stateDir).daemonJson}: it is a symbolic link; remove it\n`);
  // A home that is another user's and not sticky: its owner could swap our folder for theirs at any time.
  if (process.getuid?.() === 0) {
    const theirs = tempDir('theirs');
    chmodSync(theirs, 0o777);
    spawnSync('chown', ['nobody', theirs]);
    assert.is(await run(theirs), `evidex: refusing to keep evidex state in ${theirs}: it belongs to user 65534, who can rename or remove what is in it; set EVIDEX_HOME to a folder of your own\n`);
    assert.not.ok(existsSync(stateDirFor(root, { EVIDEX_HOME: theirs })), 'nothing was made in it');
  } else {
    console.log('  a home of another user: skipped (not root)');
  }
});

test.run();
