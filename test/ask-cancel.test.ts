// A question's abort reaches the model's server on both APIs: the client's
// cancel and the wall clock each end the request in flight — while the model
// streams, and while the server has not yet sent its headers (a model still
// loading) — and the fake sees the connection closed. These scenarios never
// reach the index, so runTool is a tripwire.
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ModelApi } from '../protocol/messages.js';
import { askFake, mustNotRun, tempStateDir } from './fake-ollama/harness.js';
import { APIS, fakeServer } from './helpers/model-servers.js';

function scenarios(test: Test, api: ModelApi): void {
  const chatPath = api === 'ollama' ? '/api/chat' : '/v1/chat/completions';

  test('client cancel aborts the in-flight chat: the fake server sees the request closed', async () => {
    const f = await fakeServer(api).start();
    try {
      f.script({ chunks: [{ thinking: 'The user wants' }, { thinking: ' the importers…' }], hang: true });
      const ac = new AbortController();
      const run = askFake(f, 'q', {
        runTool: mustNotRun, stateDir: tempStateDir(), signal: ac.signal,
        onEvent: (e) => { if (e.type === 'thinking' && e.text.includes('importers')) ac.abort(); },
      });
      const aborted = await f.waitForAbort(5000);
      const { result, events, ms } = await run;
      assert.is(aborted.path, chatPath);
      assert.is(aborted.completed, false);
      assert.is(result.stopped, 'cancelled');
      assert.is(result.message, 'cancelled by the client');
      assert.ok(ms < 4000, `cancel took ${ms} ms`);
      assert.equal(events.at(-1), { type: 'stopped', why: 'cancelled', message: 'cancelled by the client' });
    } finally { await f.stop(); }
  });

  test('cancel while waiting for response headers also closes the request', async () => {
    const f = await fakeServer(api).start();
    try {
      // A model still loading: no headers yet (the package has not even created its own AbortController).
      f.script({ chunks: [{ content: 'x' }], delayMs: 10_000 });
      const ac = new AbortController();
      const run = askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), signal: ac.signal,
        onEvent: (e) => { if (e.type === 'step') setTimeout(() => ac.abort(), 100); } });
      const aborted = await f.waitForAbort(5000);
      const { result } = await run;
      assert.is(aborted.path, chatPath);
      assert.is(result.stopped, 'cancelled');
    } finally { await f.stop(); }
  });

  test('wall-clock limit: stops a hanging reply and aborts the request', async () => {
    const f = await fakeServer(api).start();
    try {
      f.script({ chunks: [{ content: 'thinking very slowly' }], hang: true });
      const { result, ms } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), config: { timeoutMs: 400 } });
      assert.is(result.stopped, 'time_limit');
      assert.match(result.message!, 'wall-clock limit of 0.4 s');
      assert.ok(ms >= 390 && ms < 3000, `took ${ms} ms`);
      const aborted = await f.waitForAbort(2000);
      assert.is(aborted.path, chatPath);
    } finally { await f.stop(); }
  });
}

for (const api of APIS) {
  const t = suite(api);
  scenarios(t, api);
  t.run();
}
