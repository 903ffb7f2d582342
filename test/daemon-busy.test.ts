// A daemon that is alive but slow to take a connection (its event loop busy
// writing a large batch: a checkout, a reset) is waited for, said once, and
// not reported as "not answering" with advice to restart it; a stopped one
// (SIGSTOP, Ctrl-Z) is named as stopped, with how to resume it. Real sockets:
// a server that takes the TCP connection and holds the upgrade until the
// client has said it waits (an event, not a time), and a real daemon stopped.
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { realpathSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocketServer } from 'ws';
import { probe } from '../client/connection.js';
import { acquireLock, ensureStateDir, stateDirFor, writeDaemonInfo } from '../local/state.js';
import { createToken } from '../daemon/token.js';
import { daemonEnv, fixtureCopy, startDaemon, stopDaemon } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

test.after(() => cleanupTemp());

/** A state folder whose daemon is this process (it holds the lock) listening where upgrades wait for `release()`. */
async function heldUpgrades(): Promise<{ stateDir: string; release: () => void; close: () => Promise<void> }> {
  const root = tempDir('busy');
  const stateDir = stateDirFor(root, daemonEnv(tempDir('busy-home')));
  await ensureStateDir(stateDir);
  const lock = await acquireLock(stateDir, root);
  const wss = new WebSocketServer({ noServer: true });
  const held: Array<[IncomingMessage, Duplex, Buffer]> = [];
  let released = false;
  const server = createServer();
  server.on('upgrade', (req, socket, head) => {
    if (released) wss.handleUpgrade(req, socket, head, () => undefined);
    else held.push([req, socket, head]);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await writeDaemonInfo(stateDir, { pid: process.pid, port, url: `ws://127.0.0.1:${port}/`, token: await createToken(stateDir), root });
  return {
    stateDir,
    release: () => { released = true; for (const [req, socket, head] of held.splice(0)) wss.handleUpgrade(req, socket, head, () => undefined); },
    close: async () => {
      for (const c of wss.clients) c.terminate();
      for (const [, socket] of held) socket.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await lock.release();
    },
  };
}

test('a daemon that takes the connection but answers late is waited for, and said once to be busy', async () => {
  const d = await heldUpgrades();
  try {
    const waits: number[] = [];
    const p = await probe(d.stateDir, {}, 1000, { waitMs: 60_000, onWait: (pid) => { waits.push(pid); d.release(); } });
    assert.is(p.kind, 'running');
    assert.equal(waits, [process.pid]);
    if (p.kind === 'running') p.ws.terminate();
  } finally { await d.close(); }
});

test('without patience asked for, the same daemon is reported as not answering, with how long it was given', async () => {
  const d = await heldUpgrades();
  try {
    const p = await probe(d.stateDir, {}, 1000);
    assert.is(p.kind, 'unreachable');
    if (p.kind === 'unreachable') assert.is(p.error, 'Opening handshake has timed out (1 s)');
  } finally { await d.close(); }
});

test('a stopped daemon is named as stopped, with the command that resumes it, and is not waited for', async () => {
  const d = await startDaemon(realpathSync(fixtureCopy()));
  try {
    process.kill(d.info.pid, 'SIGSTOP');
    const waits: number[] = [];
    const p = await probe(d.stateDir, {}, 1000, { waitMs: 60_000, onWait: (pid) => waits.push(pid) });
    assert.is(p.kind, 'unreachable');
    if (p.kind === 'unreachable') assert.is(p.error, `it is stopped (SIGSTOP, Ctrl-Z or a debugger); \`kill -CONT ${d.info.pid}\` resumes it`);
    assert.equal(waits, []);
  } finally {
    process.kill(d.info.pid, 'SIGCONT');
    await stopDaemon(d);
  }
});

test.run();
