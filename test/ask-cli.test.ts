// `evidex ask` end to end, on both APIs: a real daemon process (OLLAMA_HOST →
// the fake Ollama, or EVIDEX_API_BASE → the fake OpenAI-compatible server),
// the real client connection, runAskCommand rendering to a captured stream.
// Also Ctrl-C: the daemon aborts the model's request.
import { suite, test, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from '../client/connection.js';
import { runAskCommand } from '../client/ask.js';
import type { ModelApi } from '../protocol/messages.js';
import { call } from './fake-ollama/server.js';
import { askThrough, auditLines, jsonLines, startAskDaemon, type AskDaemon, type AskOutput } from './helpers/ask-daemon.js';
import { stopDaemon, waitFor, type TestDaemon, captureStream as capture } from './helpers/daemon.js';
import { assertEvidenceChecks } from './helpers/evidence.js';
import { evidex } from './helpers/cli.js';
import { join } from 'node:path';
import { APIS, serverEnv, serverVariable, view, type FakeServer } from './helpers/model-servers.js';

let s: AskDaemon;
let f: FakeServer;
let d: TestDaemon;
let root: string;

/** The daemon's own address for the fake, written without its scheme (the daemon normalises it). */
function daemonEnv(fake: FakeServer): NodeJS.ProcessEnv {
  const env = serverEnv(fake);
  const name = serverVariable(fake.api);
  return { ...env, [name]: env[name].replace('http://', ''), EVIDEX_MODEL: '' };
}

function scenarios(test: Test, api: ModelApi): void {
  test.before(async () => {
    s = await startAskDaemon({ api, git: true, env: daemonEnv });
    ({ fake: f, daemon: d, root } = s);
  });
  test.after(async () => { await s.stop(); });

  /** `evidex ask QUESTION` through a fresh client connection to the daemon: exit code, stdout, stderr, and both. */
  async function ask(question: string, json: boolean, env: NodeJS.ProcessEnv = {}): Promise<AskOutput> {
    const client = await connect(root, { env: d.env, clientName: 'cli' });
    try {
      return await askThrough(client, question, { json, env });
    } finally { await client.close(); }
  }

  test('plain output: tool call and decision, streamed answer, citations ✔/✘, evidence; audit in the state folder', async () => {
    f.script(
      { chunks: [{ thinking: 'find importers' }, { tool_calls: [call('find_importers', { module_name: 'rag_common' })] }, { tool_calls: [call('shell', { cmd: 'ls' })] }] },
      { chunks: [{ content: 'Imported at src/build_index.py:4' }, { content: ' and src/rag_chat.py:99.' }] },
    );
    const { code, text, out, err } = await ask('Who imports rag_common?', false);
    assert.is(code, 4, text); // answered, but src/rag_chat.py:99 is not backed by the evidence
    // stdout holds only the answer (not a terminal: written whole at the end); everything else is on stderr.
    assert.is(out, 'Imported at src/build_index.py:4 and src/rag_chat.py:99.\n');
    assert.not.match(err, 'Imported at');
    assert.match(text, `asking qwen3:8b at ${f.url} (${api === 'openai' ? 'OpenAI-compatible API; ' : ''}up to `); // the daemon's address without a scheme was normalised
    // Not a terminal: plain progress lines, no spinner's words; the context window named with its model and what it is for.
    assert.match(text, 'step 1: the model is thinking\n');
    assert.not.match(text, 'thinking…');
    assert.match(text, /\nqwen3:8b reads \d+ tokens at a time \(its context window\): prompts and tool results are fitted to it/);
    assert.match(text, '→ find_importers {"module_name":"rag_common"}  ✔ allowed');
    assert.match(text, '  ← 4 items (total 4) in ');
    assert.match(text, '→ shell {"cmd":"ls"}  ✘ refused (unknown_tool): unknown tool "shell"; the allowed tools are ');
    assert.not.match(text, /refused\W+refused/); // the decision word once, not "refused: refused (…)"
    assert.match(text, 'Imported at src/build_index.py:4 and src/rag_chat.py:99.\n');
    assert.match(text, 'citations: 1 of 2 backed by the evidence');
    assert.match(text, '  ✔ src/build_index.py:4  import rag_common'); // with the first cited line beside it
    assert.match(text, '  ✘ src/rag_chat.py:99  (not in the evidence');
    assert.match(text, 'evidence (4):\n  src/build_index.py:4  import  rag_common');
    // The transcript the daemon's loop sent: the refused call's reason went back as a tool message.
    const last = view(f.chats.at(-1)!);
    assert.equal(last.slice(-2).map((m) => [m.role, m.toolName]), [['tool', 'find_importers'], ['tool', 'shell']]);
    const audit = auditLines(d);
    assert.equal(audit.slice(-2).map((a) => [a.tool, a.decision]), [['find_importers', 'allowed'], ['shell', 'refused']]);
    assert.equal(audit.slice(-2).map((a) => [a.client, a.question]), [['cli', 'Who imports rag_common?'], ['cli', 'Who imports rag_common?']]);
  });

  test('from a subfolder (a real CLI process): citations and the evidence list print paths from there, as the tool commands do', async () => {
    f.script({ chunks: [{ tool_calls: [call('find_importers', { module_name: 'rag_common' })] }] }, { chunks: [{ content: 'See src/build_index.py:4.' }] });
    const r = await evidex(['ask', 'who imports rag_common?', '--model', 'qwen3:8b'], { cwd: join(root, 'src'), home: d.env.EVIDEX_HOME!, env: serverEnv(f) });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, 'See src/build_index.py:4.\n'); // the model's words as it wrote them
    assert.match(r.stderr, '  ✔ build_index.py:4  import rag_common');
    assert.match(r.stderr, 'evidence (4):\n  build_index.py:4  import  rag_common');
    assert.not.match(r.stderr, '  src/build_index.py');
  });

  test('two refusals: the attempts list says "refused (code): reason" once per call, exit 3', async () => {
    f.script({ chunks: [{ tool_calls: [call('shell', { cmd: 'ls' }), call('read_evidence', { path: '../etc/passwd', start_line: 1 })] }] });
    const { code, text, out } = await ask('list files', false);
    assert.is(code, 3, text);
    assert.is(out, '');
    assert.match(text, '\nstopped: refused_twice — ');
    assert.match(text, '\nattempts:\n  step 1: shell {"cmd":"ls"}  refused (unknown_tool): unknown tool "shell"');
    assert.match(text, /\n  step 1: read_evidence \{"path":"\.\.\/etc\/passwd","start_line":1\}  refused \(path_denied\): \S/);
    assert.not.match(text, /refused\W+refused/);
  });

  test('--json: one event per line, then the result', async () => {
    f.script({ chunks: [{ tool_calls: [call('read_evidence', { path: 'src/rag_common.py', start_line: 12 })] }] }, { chunks: [{ content: 'src/rag_common.py:12' }] });
    const { code, text } = await ask('q', true);
    assert.is(code, 0);
    const lines = jsonLines(text);
    assert.equal(lines.slice(0, -1).map((l) => l.event.type), ['started', 'model', 'step', 'tool_running', 'tool_call', 'tool_result', 'step', 'content', 'citations', 'stopped']);
    const { result } = lines.at(-1);
    assert.is(result.stopped, 'answered');
    assert.equal(result.citations.map((c: any) => c.backed), [true]);
    assertEvidenceChecks(root, result.evidence);
  });

  test('Ctrl-C cancels on the daemon, which aborts the model\'s request', async () => {
    f.script({ chunks: [{ content: 'Let me think' }], hang: true });
    const client = await connect(root, { env: d.env });
    const cap = capture();
    const run = runAskCommand(client, 'q', { json: true, out: cap.out, err: capture().out, env: {} });
    // Wait until the model is streaming, then press Ctrl-C.
    await waitFor('the model is streaming', () => cap.text().includes('"content"'));
    process.emit('SIGINT');
    const aborted = await f.waitForAbort(5000);
    const code = await run;
    await client.close();
    assert.is(aborted.path, api === 'ollama' ? '/api/chat' : '/v1/chat/completions');
    assert.is(code, 130);
    const lines = jsonLines(cap.text());
    assert.is(lines.at(-1).result?.stopped ?? 'cancelled', 'cancelled');
  });

  test('exit codes: 0 every citation backed, 4 one not backed, 3 no answer; the answer alone on stdout', async () => {
    f.script({ chunks: [{ tool_calls: [call('find_importers', { module_name: 'rag_common' })] }] }, { chunks: [{ content: 'See src/build_index.py:4.' }] });
    const ok = await ask('who imports rag_common?', false);
    assert.equal([ok.code, ok.out], [0, 'See src/build_index.py:4.\n']);
    assert.match(ok.err, 'citations: 1 of 1 backed');
    f.script({ chunks: [{ content: 'See src/nowhere.py:4.' }] });
    const bad = await ask('who imports rag_common?', false);
    assert.equal([bad.code, bad.out], [4, 'See src/nowhere.py:4.\n']);
    f.script({ chunks: [{ content: 'A long answer that', }], doneReason: 'length' });
    const cut = await ask('q', false);
    assert.is(cut.code, 3);
    assert.is(cut.out, 'A long answer that\n'); // the partial answer is still the answer, marked on stderr
    assert.match(cut.err, 'answer incomplete: the reply was cut at the model\'s output limit (done_reason "length")');
  });

  test('a per-request server is refused unless on loopback or the daemon\'s own; nothing is sent there', async () => {
    const before = f.requests.length;
    const name = serverVariable(api);
    const foreign = await ask('q', true, api === 'ollama' ? { OLLAMA_HOST: 'http://192.0.2.7:11434' } : { EVIDEX_API: 'openai', EVIDEX_API_BASE: 'http://192.0.2.7:8080/v1' });
    assert.is(foreign.code, 1);
    const msg = JSON.parse(foreign.out.trim()).error.message as string;
    assert.match(msg, api === 'ollama'
      ? 'OLLAMA_HOST sent with the request (http://192.0.2.7:11434) is refused: the daemon reaches Ollama only on loopback or at its own OLLAMA_HOST'
      : 'EVIDEX_API_BASE sent with the request (http://192.0.2.7:8080/v1) is refused: the daemon reaches an OpenAI-compatible server only on loopback or at its own EVIDEX_API_BASE');
    assert.not.match(msg, '\n');
    assert.is(f.requests.length, before);
    // Loopback on another port is allowed (the fake is on 127.0.0.1).
    f.script({ chunks: [{ content: 'fine' }] });
    assert.is((await ask('q', true, serverEnv(f))).code, 0, name);
  });
}

for (const api of APIS) {
  const t = suite(api);
  scenarios(t, api);
  t.run();
}

test('an OLLAMA_HOST ending in /v1 is taken as an OpenAI-compatible server, said once on stderr; named Ollama\'s, it is refused with the value to use', async () => {
  const o = await startAskDaemon({ api: 'openai', env: (fake) => ({ OLLAMA_HOST: fake.url.replace(/\/v1$/, '') }) });
  try {
    const client = await connect(o.root, { env: o.daemon.env, clientName: 'cli' });
    try {
      o.fake.script({ chunks: [{ content: 'fine' }] });
      const v1 = await askThrough(client, 'q', { json: true, env: { OLLAMA_HOST: o.fake.url } });
      assert.is(v1.code, 0, v1.text);
      assert.is(v1.err, `evidex ask: OLLAMA_HOST=${o.fake.url} ends in /v1, the OpenAI-compatible path: asking it as an OpenAI-compatible server `
        + '(set EVIDEX_API=openai and EVIDEX_API_BASE to say so, or EVIDEX_API=ollama for Ollama\'s own API at the server\'s root)\n');
      assert.equal(jsonLines(v1.out)[0].event.api, 'openai');
      assert.is(o.fake.chats.length, 1);
      const before = o.fake.requests.length;
      const named = await askThrough(client, 'q', { json: true, env: { OLLAMA_HOST: o.fake.url, EVIDEX_API: 'ollama' } });
      assert.is(named.code, 1);
      assert.match(JSON.parse(named.out.trim()).error.message, `ends in /v1, the OpenAI-compatible path; evidex uses Ollama's own API at the server's root: set OLLAMA_HOST=${o.fake.url.replace(/\/v1$/, '')}`);
      assert.is(named.err, '', 'no notice when the API is named');
      assert.is(o.fake.requests.length, before);
    } finally { await client.close(); }
  } finally { await o.stop(); }
});

test('the daemon stopped in the middle of a question: said as such, with what to do, not as a closed connection', async () => {
  const o = await startAskDaemon({ git: true, env: daemonEnv });
  try {
    o.fake.script({ chunks: [{ content: 'Let me think' }], hang: true });
    const client = await connect(o.root, { env: o.daemon.env });
    const out = capture();
    const err = capture();
    const run = runAskCommand(client, 'q', { json: false, out: out.out, err: err.out, env: {} });
    await waitFor('the model is streaming', () => o.fake.requests.some((r) => r.path === '/api/chat'));
    await stopDaemon(o.daemon);
    const code = await run;
    await client.close();
    assert.is(code, 1);
    assert.match(err.text(), /evidex ask: the daemon stopped before the question was answered \(connection closed \(1001 daemon shutting down\)\); ask again \(the next command starts a daemon\)\n$/);
  } finally { await o.stop(); }
});

test('every tools/call is audited with the client\'s own name (X-Evidex-Client), allowed or refused; no name is "unknown"', async () => {
  s = await startAskDaemon({ git: true, env: daemonEnv });
  ({ fake: f, daemon: d, root } = s);
  try {
  const named = await connect(root, { env: d.env, clientName: 'Claude Desktop' });
  const anon = await connect(root, { env: d.env });
  try {
    await named.requestRaw('tools/call', { name: 'find_importers', arguments: { module_name: 'rag_common' } });
    await named.requestRaw('tools/call', { name: 'read_evidence', arguments: { path: '.env', start_line: 1 } }).catch(() => undefined);
    await anon.requestRaw('tools/call', { name: 'search_code', arguments: { query: 'COLLECTION_NAME' } });
  } finally { await named.close(); await anon.close(); }
  const audit = await waitFor('audit lines', () => {
    const lines = auditLines(d);
    return lines.filter((a) => a.question === null).length >= 3 ? lines.filter((a) => a.question === null).slice(-3) : null;
  });
  assert.equal(audit.map((a) => [a.client, a.tool, a.decision, a.code ?? null]), [
    ['Claude Desktop', 'find_importers', 'allowed', null],
    ['Claude Desktop', 'read_evidence', 'refused', 'secret_denied'],
    ['unknown', 'search_code', 'allowed', null],
  ]);
  assert.equal(audit[1].arguments, { path: '.env', start_line: 1 });
  assert.match(audit[1].reason, /\S/);
  for (const a of audit) { assert.ok(!Number.isNaN(Date.parse(a.time))); assert.type(a.duration_ms, 'number'); }
  } finally { await s.stop(); }
});

test.run();
