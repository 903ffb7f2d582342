// `evidex chat` when its daemon goes away between two questions (stopped by
// hand, an idle exit, a restart): the next question connects again, starting
// a daemon as the chat's own start did, and is answered, in a new
// conversation (the old one was the stopped daemon's), said in one line. It
// once answered every later question "ask again (the next command starts a
// daemon)" without ever connecting again, so only leaving the chat helped.
// A real `evidex chat` process (input not a terminal), real daemons, the fake
// Ollama.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { daemonStop } from '../client/connection.js';
import { startAskDaemon, terminalEnv } from './helpers/ask-daemon.js';
import { stopDaemon, waitFor } from './helpers/daemon.js';
import { PROJECT_ROOT } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');

test('a question after the daemon stopped starts a new daemon and is answered, in a new conversation', async () => {
  const s = await startAskDaemon({ git: true, env: (fake) => ({ OLLAMA_HOST: fake.url }) });
  const env = { ...process.env, ...terminalEnv(s, { NO_COLOR: '1' }) };
  const child = spawn(process.execPath, [BIN, 'chat', '--repo', s.root], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
  child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    s.fake.script({ chunks: [{ content: 'The first answer.' }] });
    child.stdin.write('hello?\n');
    await waitFor('the first answer', () => out.includes('The first answer.'), 30_000);

    await stopDaemon(s.daemon);
    s.fake.script({ chunks: [{ content: 'The second answer.' }] });
    child.stdin.write('and now?\n');
    // A loaded machine may take a while to start a daemon and index the fixture: an event, not a delay.
    await waitFor('the second answer, from a new daemon', () => out.includes('The second answer.') || /ask again/.test(err), 60_000);
    assert.ok(out.includes('The second answer.'), err);
    assert.match(err, 'evidex chat: the daemon had stopped; this question starts a new conversation with a new one');
    // The new daemon's conversation holds nothing of the old one: the question went alone.
    const asked = JSON.stringify(s.fake.chats.at(-1)?.body ?? null);
    assert.ok(asked.includes('and now?') && !asked.includes('hello?'), asked);

    child.stdin.end();
    assert.is(await exited, 0, err);
  } finally {
    child.kill();
    await daemonStop(s.root, { env });
    await s.stop();
  }
});

test.run();
