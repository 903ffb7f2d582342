// OLLAMA_HOST pointing at something that is not Ollama: an OpenAI-compatible
// server's root (llama-server answers 404 with an error object, LM Studio 200
// with an error string, vLLM 404 with its own shape), or a web server
// answering HTML. Each must give one line quoting the server and saying what
// to do, never the package's own parse or type error. The servers are the
// wire-faithful fakes, reached through the real `ollama` package.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeOpenAI } from './fake-openai/server.js';
import type { Quirk } from './fake-openai/quirks.js';
import { askFake, mustNotRun, tempStateDir } from './fake-ollama/harness.js';

/** Asks through the Ollama API at the root of a fake OpenAI-compatible server playing `quirk`. */
async function askAtRoot(quirk: Quirk) {
  const f = await new FakeOpenAI({ quirk }).start();
  const root = `http://127.0.0.1:${f.port}`;
  try {
    const run = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), config: { api: 'ollama', host: root } });
    return { ...run, root, requests: f.requests.map((r) => r.path) };
  } finally { await f.stop(); }
}

test('llama-server root (404 with an {"error": {"message"}} object): one line quoting it, suggesting the OpenAI API', async () => {
  const { result, root } = await askAtRoot('llama-server');
  assert.is(result.error?.code, 'ollama_http_error');
  const m = result.error!.message;
  assert.not.match(m, 'is not a function');
  assert.not.match(m, '[object Object]');
  assert.match(m, `${root} answered HTTP 404 (File Not Found)`);
  assert.match(m, `--api openai`);
  assert.match(m, `EVIDEX_API_BASE=${root}/v1`);
  assert.not.match(m, '\n');
});

test('LM Studio root (HTTP 200 {"error": "Unexpected endpoint…"}): does not look like Ollama, quoted, --api openai suggested', async () => {
  const { result, root, requests } = await askAtRoot('lmstudio');
  assert.is(result.error?.code, 'ollama_http_error');
  const m = result.error!.message;
  assert.not.match(m, 'reports no capabilities');
  assert.match(m, `${root} does not look like Ollama`);
  assert.match(m, 'Unexpected endpoint or method. (POST /api/show)');
  assert.match(m, `--api openai`);
  assert.match(m, `EVIDEX_API_BASE=${root}/v1`);
  assert.equal(requests, ['/api/show']); // nothing else asked of a server that is not Ollama
});

test('vLLM root (404 {"detail"} / error object without "error"): the same advice', async () => {
  const { result, root } = await askAtRoot('vllm');
  assert.is(result.error?.code, 'ollama_http_error');
  assert.match(result.error!.message, `${root} answered HTTP 404`);
  assert.match(result.error!.message, `EVIDEX_API_BASE=${root}/v1`);
});

test('a server answering HTML with 200: "not JSON", worded like the OpenAI path', async () => {
  const s = createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end('<html><body>Welcome to nginx!</body></html>'); }); });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const host = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  try {
    const f = new FakeOpenAI(); // only lends askFake a shape; the host is the HTML server
    const { result } = await askFake(f, 'q', { runTool: mustNotRun, stateDir: tempStateDir(), config: { api: 'ollama', host } });
    assert.is(result.error?.code, 'ollama_bad_reply');
    const m = result.error!.message;
    assert.match(m, `${host} sent a reply that is not JSON (`);
    assert.match(m, '; is OLLAMA_HOST the address of an Ollama server');
  } finally { await new Promise((r) => s.close(r)); }
});

test.run();
