// `evidex ask` end to end: a real daemon process (OLLAMA_HOST → the fake
// Ollama), the real client connection, runAskCommand rendering to a captured
// stream. Also Ctrl-C: the daemon aborts the Ollama request.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../client/connection.js';
import { runAskCommand } from '../client/ask.js';
import { FakeOllama, call } from './fake-ollama/server.js';
import { cleanupTemp, fixtureCopy, startDaemon, stopDaemon, type TestDaemon, captureStream as capture } from './helpers/daemon.js';
import { assertEvidenceChecks } from './helpers/evidence.js';

let f: FakeOllama;
let d: TestDaemon;
let root: string;

test.before(async () => {
  f = await new FakeOllama().start();
  root = fixtureCopy({ git: true });
  d = await startDaemon(root, { env: { OLLAMA_HOST: f.url.replace('http://', ''), EVIDEX_MODEL: '' } });
});
test.after(async () => { await stopDaemon(d); await f.stop(); cleanupTemp(); });

/** `evidex ask QUESTION` through a fresh client connection to the daemon: exit code and everything printed. */
async function ask(question: string, json: boolean): Promise<{ code: number; text: string }> {
  const client = await connect(root, { env: d.env });
  const cap = capture();
  try {
    const code = await runAskCommand(client, question, { json, out: cap.out, env: {} });
    return { code, text: cap.text() };
  } finally { await client.close(); }
}

test('plain output: tool call and decision, streamed answer, citations ✔/✘, evidence; audit in the state folder', async () => {
  f.script(
    { chunks: [{ thinking: 'find importers' }, { tool_calls: [call('find_importers', { module_name: 'rag_common' })] }, { tool_calls: [call('shell', { cmd: 'ls' })] }] },
    { chunks: [{ content: 'Imported at src/build_index.py:4' }, { content: ' and src/rag_chat.py:99.' }] },
  );
  const { code, text } = await ask('Who imports rag_common?', false);
  assert.is(code, 0, text);
  assert.match(text, `asking qwen3:8b at ${f.url}`); // OLLAMA_HOST without a scheme was normalised
  assert.match(text, 'step 1: thinking…');
  assert.match(text, '→ find_importers {"module_name":"rag_common"}  ✔ allowed');
  assert.match(text, '  ← 4 items (total 4) in ');
  assert.match(text, '→ shell {"cmd":"ls"}  ✘ refused (unknown_tool): unknown tool "shell"; the allowed tools are ');
  assert.not.match(text, /refused\W+refused/); // the decision word once, not "refused: refused (…)"
  assert.match(text, 'Imported at src/build_index.py:4 and src/rag_chat.py:99.\n');
  assert.match(text, 'citations: 1 of 2 backed by the evidence');
  assert.match(text, '  ✔ src/build_index.py:4\n');
  assert.match(text, '  ✘ src/rag_chat.py:99  (not in the evidence');
  assert.match(text, 'evidence (4):\n  src/build_index.py:4  import  rag_common');
  // The transcript the daemon's loop sent: the refused call's reason went back as a tool message.
  const last = f.chats.at(-1)!.body.messages;
  assert.equal(last.slice(-2).map((m: any) => [m.role, m.tool_name]), [['tool', 'find_importers'], ['tool', 'shell']]);
  const audit = readFileSync(join(d.stateDir, 'audit.log'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.equal(audit.slice(-2).map((a) => [a.tool, a.decision]), [['find_importers', 'allowed'], ['shell', 'refused']]);
  assert.type(audit.at(-1).client, 'string');
});

test('two refusals: the attempts list says "refused (code): reason" once per call, exit 3', async () => {
  f.script({ chunks: [{ tool_calls: [call('shell', { cmd: 'ls' }), call('read_evidence', { path: '../etc/passwd', start_line: 1 })] }] });
  const { code, text } = await ask('list files', false);
  assert.is(code, 3, text);
  assert.match(text, '\nstopped: refused_twice — ');
  assert.match(text, '\nattempts:\n  step 1: shell {"cmd":"ls"}  refused (unknown_tool): unknown tool "shell"');
  assert.match(text, /\n  step 1: read_evidence \{"path":"\.\.\/etc\/passwd","start_line":1\}  refused \(path_denied\): \S/);
  assert.not.match(text, /refused\W+refused/);
});

test('--json: one event per line, then the result', async () => {
  f.script({ chunks: [{ tool_calls: [call('read_evidence', { path: 'src/rag_common.py', start_line: 12 })] }] }, { chunks: [{ content: 'src/rag_common.py:12' }] });
  const { code, text } = await ask('q', true);
  assert.is(code, 0);
  const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.slice(0, -1).map((l) => l.event.type), ['started', 'model', 'step', 'tool_call', 'tool_result', 'step', 'content', 'citations', 'stopped']);
  const { result } = lines.at(-1);
  assert.is(result.stopped, 'answered');
  assert.equal(result.citations.map((c: any) => c.backed), [true]);
  assertEvidenceChecks(root, result.evidence);
});

test('Ctrl-C cancels on the daemon, which aborts the Ollama request', async () => {
  f.script({ chunks: [{ content: 'Let me think' }], hang: true });
  const client = await connect(root, { env: d.env });
  const cap = capture();
  const run = runAskCommand(client, 'q', { json: true, out: cap.out, env: {} });
  // Wait until the model is streaming, then press Ctrl-C.
  for (let i = 0; i < 200 && !cap.text().includes('"content"'); i++) await new Promise((r) => setTimeout(r, 20));
  process.emit('SIGINT');
  const aborted = await f.waitForAbort(5000);
  const code = await run;
  await client.close();
  assert.is(aborted.path, '/api/chat');
  assert.is(code, 130);
  const lines = cap.text().trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.is(lines.at(-1).result?.stopped ?? 'cancelled', 'cancelled');
});

test.run();
