// What every MCP transport of evidex must answer, checked the same way over
// stdio (test/mcp.test.ts) and Streamable HTTP (test/mcp-http.test.ts): the
// host's view through the SDK's own client, compared with what a plain daemon
// client gets for the same call, and the evidence checked against the files.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import * as assert from 'uvu/assert';
import type { Client } from '../../client/connection.js';
import { TOOL_NAMES, toolDescriptors } from '../../indexer/query/schemas.js';
import { canonicalRoot } from '../../local/root.js';
import { readDaemonInfo, stateDirFor } from '../../local/state.js';
import { Methods } from '../../protocol/messages.js';
import { waitFor } from './daemon.js';
import { assertEvidenceChecks } from './evidence.js';

type Args = Record<string, unknown>;
interface Evidence { path: string; start_line: number; end_line: number; kind: string; name: string; snippet: string }
interface Answer { evidence: Evidence[]; total: number; generation: number }

/** initialize: the server names itself, offers tools (and nothing else) and says what its evidence is. */
export function checkInitialize(mcp: McpClient, repo: string): void {
  assert.is(mcp.getServerVersion()?.name, 'evidex');
  assert.ok(mcp.getServerCapabilities()?.tools, 'tools capability');
  assert.not.ok(mcp.getServerCapabilities()?.resources, 'nothing but tools is exposed');
  assert.not.ok(mcp.getServerCapabilities()?.prompts, 'nothing but tools is exposed');
  assert.ok(mcp.getInstructions()?.includes(canonicalRoot(repo)), mcp.getInstructions());
  // "exactly those lines" holds but for a cut item, and the instructions say which (a long item arrives with truncated: true).
  assert.match(mcp.getInstructions() ?? '', /exactly those lines of the file, but for an item marked truncated: true, whose snippet is their first 4,000 characters/);
}

/** tools/list: exactly the allowlist, with the daemon's zod-generated schemas and model-facing descriptions. */
export async function checkToolList(mcp: McpClient): Promise<void> {
  const { tools } = await mcp.listTools();
  assert.equal(tools.map((t) => t.name), TOOL_NAMES);
  const ours = toolDescriptors();
  for (const t of tools) {
    const d = ours.find((x) => x.name === t.name)!;
    assert.equal(t.inputSchema, d.inputSchema, `${t.name} inputSchema`);
    assert.equal(t.outputSchema, d.outputSchema, `${t.name} outputSchema`);
    assert.ok(t.description!.startsWith(d.description), `${t.name}: the allowlist's own description comes first`);
    assert.ok(t.description!.length > d.description.length + 40, `${t.name}: says when to use it`);
    if ((d.inputSchema.properties as Record<string, unknown>).limit) assert.match(t.description!, /`total` counts every match/);
    assert.is(t.annotations?.readOnlyHint, true);
    assert.is(t.annotations?.destructiveHint, false);
    // Symbols and imports come from Python, TypeScript and JavaScript: no text may say Python alone.
    for (const text of [t.title ?? '', t.description!]) {
      for (const m of text.matchAll(/Python/g)) {
        assert.ok(/^Python,? TypeScript,? (and )?JavaScript/.test(text.slice(m.index)), `${t.name} says Python alone: ${text}`);
      }
    }
  }
  assert.match(tools.find((t) => t.name === 'find_symbol')!.title!, 'Python, TypeScript and JavaScript');
  assert.match(tools.find((t) => t.name === 'find_importers')!.title!, 'Python, TypeScript and JavaScript');
  assert.equal((tools[0].outputSchema as { required?: string[] }).required?.sort(), ['evidence', 'generation', 'total']);
}

const CALLS: Array<[string, Args]> = [
  ['search_code', { query: 'COLLECTION_NAME' }],
  ['search_code', { query: 'def ', limit: 3 }],
  ['find_symbol', { name: 'Settings' }],
  ['read_evidence', { path: 'src/rag_common.py', start_line: 1, end_line: 8, context: 2 }],
  ['find_importers', { module_name: 'rag_common' }],
];

/**
 * Every tool answers as structuredContent and the same JSON as text, equal to
 * a daemon client's answer, its evidence true to the files; read_git_diff
 * shows an edit made here (`marker`, a line appended to src/rag_common.py).
 */
export async function checkEveryTool(mcp: McpClient, direct: Client, repo: string, marker: string): Promise<void> {
  appendFileSync(join(repo, 'src', 'rag_common.py'), `\n${marker}\n`);
  for (const [name, args] of [...CALLS, ['read_git_diff', {}] as [string, Args]]) {
    const r = await mcp.callTool({ name, arguments: args });
    const where = `${name} ${JSON.stringify(args)}`;
    assert.is(r.isError, undefined, `${where}: ${JSON.stringify(r.content)}`);
    const content = r.content as Array<{ type: string; text: string }>;
    assert.is(content.length, 1);
    assert.is(content[0].type, 'text');
    assert.equal(JSON.parse(content[0].text), r.structuredContent, where);
    const s = r.structuredContent as unknown as Answer;
    assert.ok(s.evidence.length > 0, `${where}: found something`);
    assert.ok(s.total >= s.evidence.length && Number.isInteger(s.generation), where);
    assertEvidenceChecks(repo, s.evidence);
    const own = await direct.requestRaw('tools/call', { name, arguments: args }) as Answer;
    assert.equal(s.evidence, own.evidence, `${where}: same items as the daemon's own answer`);
    assert.is(s.total, own.total, where);
  }
  const diff = (await mcp.callTool({ name: 'read_git_diff', arguments: {} })).structuredContent as unknown as Answer;
  assert.ok(diff.evidence.some((e) => e.snippet.includes(`+${marker}`)), 'the diff shows the edit');
}

/** Calls every refusal code a host can meet, each one an isError result with one line, the daemon's own code. */
export const REFUSALS: Array<[string, Args, string]> = [
  ['write_file', { path: 'x' }, 'unknown_tool'],
  ['search_code', { query: 'x', limit: '5' }, 'invalid_arguments'],
  ['search_code', { query: 'x', regex: true }, 'invalid_arguments'],
  ['read_evidence', { start_line: 1 }, 'invalid_arguments'],
  ['read_evidence', { path: '../../etc/passwd', start_line: 1 }, 'path_denied'],
  ['read_evidence', { path: '/etc/passwd', start_line: 1 }, 'path_denied'],
  ['read_evidence', { path: '.env', start_line: 1 }, 'secret_denied'],
  ['read_evidence', { path: '.env.local', start_line: 1 }, 'secret_denied'],
  ['read_evidence', { path: 'config/server.pem', start_line: 1 }, 'secret_denied'],
  ['read_git_diff', { base: '--output=/tmp/x' }, 'bad_ref'],
];

/** Every refusal is an isError result with the one-line reason, the daemon's own code, no secret in it; the server keeps serving. */
export async function checkRefusals(mcp: McpClient, direct: Client, repo: string): Promise<void> {
  writeFileSync(join(repo, '.env.local'), 'TOKEN=very-secret\n');
  for (const [name, args, code] of REFUSALS) {
    const r = await mcp.callTool({ name, arguments: args });
    const where = `${name} ${JSON.stringify(args)}`;
    assert.is(r.isError, true, where);
    assert.is(r.structuredContent, undefined, where);
    const text = (r.content as Array<{ text: string }>)[0].text;
    assert.ok(text.startsWith(`${code}: `), `${where}: ${text}`);
    assert.not.match(text, /\n/, `${where}: one line`);
    assert.not.match(text, /very-secret/, where);
    // The daemon refuses the same call with the same code: the MCP server adds no rules of its own.
    const own = await direct.requestRaw('tools/call', { name, arguments: args }).then(() => null, (e: { data?: { code?: string } }) => e.data?.code);
    assert.is(own, code, where);
  }
  const after = await mcp.callTool({ name: 'search_code', arguments: { query: 'COLLECTION_NAME' } });
  assert.is(after.isError, undefined);
}

/** tools/call without arguments is the same as {}: an all-optional tool answers, a required field is named. */
export async function checkNoArguments(mcp: McpClient): Promise<void> {
  const diff = await mcp.callTool({ name: 'read_git_diff' });
  assert.is(diff.isError, undefined, JSON.stringify(diff.content));
  const bad = await mcp.callTool({ name: 'find_symbol' });
  assert.is(bad.isError, true);
  assert.match((bad.content as Array<{ text: string }>)[0].text, /^invalid_arguments: find_symbol: name/);
}

/** The pid of the daemon serving `repo`. */
export async function daemonPid(repo: string, env: NodeJS.ProcessEnv): Promise<number> {
  return (await readDaemonInfo(stateDirFor(canonicalRoot(repo), env)))!.pid;
}

/**
 * Bytes sent to the daemon listening on `port` that it has not read yet, from
 * the kernel's socket table (Linux): the receive queues of its established
 * connections. A stopped daemon reads nothing, so this grows exactly when a
 * message reaches it.
 */
function unreadAtDaemon(port: number): number {
  let total = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try { text = readFileSync(table, 'utf8'); } catch { continue; }
    for (const row of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue ...
      const [, local, , state, queues] = row.trim().split(/\s+/);
      if (!queues || state !== '01' || parseInt(local.split(':').pop()!, 16) !== port) continue;
      total += parseInt(queues.split(':')[1], 16);
    }
  }
  return total;
}

/** A tools/call or $/cancelRequest frame is larger than this; a ping or pong (the only other traffic) is smaller. */
const MESSAGE_FRAME_BYTES = 60;

/** The daemon serving `repo`, stopped (SIGSTOP): `reached()` waits until one more message has been sent to it. */
export interface StoppedDaemon { pid: number; reached(): Promise<void> }

/** Stops the daemon (SIGSTOP) and says how to wait for each message to reach it; the caller resumes or kills it. */
export async function stopDaemon(repo: string, env: NodeJS.ProcessEnv): Promise<StoppedDaemon> {
  const info = (await readDaemonInfo(stateDirFor(canonicalRoot(repo), env)))!;
  const port = Number(new URL(info.url).port);
  process.kill(info.pid, 'SIGSTOP');
  let seen = unreadAtDaemon(port);
  return {
    pid: info.pid,
    // An event, not a delay: on a loaded machine a host's message may take any time to be forwarded.
    reached: async () => {
      const now = await waitFor('the message reached the stopped daemon', () => {
        const n = unreadAtDaemon(port);
        return n >= seen + MESSAGE_FRAME_BYTES ? n : null;
      });
      seen = now;
    },
  };
}

/**
 * A stopped daemon holds a call and its cancellation unread; once resumed it
 * reads both together (git has started for the call when the cancellation
 * arrives). Runs `cancel` with the daemon stopped, then resumes it.
 */
export async function whileDaemonStopped<T>(repo: string, env: NodeJS.ProcessEnv, cancel: (stopped: StoppedDaemon) => Promise<T>): Promise<T> {
  const stopped = await stopDaemon(repo, env);
  try {
    return await cancel(stopped);
  } finally {
    process.kill(stopped.pid, 'SIGCONT');
  }
}

/** Waits until the daemon has answered one more read_git_diff call than `before`, and checks it answered it as an error (cancelled). */
export async function cancelledInDaemon(direct: Client, before: { calls: number; errors: number } | undefined): Promise<void> {
  const key = 'tools/call read_git_diff';
  const after = await waitFor('the daemon answered the cancelled call', async () => {
    const l = (await direct.request(Methods.indexStatus)).daemon.latency[key];
    return l && l.calls > (before?.calls ?? 0) ? l : null;
  });
  assert.is(after.calls - (before?.calls ?? 0), 1);
  assert.is(after.errors - (before?.errors ?? 0), 1, 'answered as cancelled, not with the diff');
}

/** The daemon's counts of read_git_diff calls so far. */
export async function diffCalls(direct: Client): Promise<{ calls: number; errors: number } | undefined> {
  return (await direct.request(Methods.indexStatus)).daemon.latency['tools/call read_git_diff'];
}

/** A cancelled call is cancelled in the daemon too ($/cancelRequest), and the server answers the next call. */
export async function checkCancellation(mcp: McpClient, direct: Client, repo: string, env: NodeJS.ProcessEnv): Promise<void> {
  const before = await diffCalls(direct);
  await whileDaemonStopped(repo, env, async (stopped) => {
    const ac = new AbortController();
    const pending = mcp.callTool({ name: 'read_git_diff', arguments: {} }, undefined, { signal: ac.signal });
    await stopped.reached();
    const rejected = pending.then(() => assert.unreachable('the call was cancelled'), (e: unknown) => assert.ok(e, 'rejected'));
    ac.abort('the host gave up');
    // The SDK rejects at once; the cancellation it sends must reach the daemon before it runs again.
    await stopped.reached();
    await rejected;
  });
  await cancelledInDaemon(direct, before);
  const next = await mcp.callTool({ name: 'find_symbol', arguments: { name: 'Settings' } });
  assert.is(next.isError, undefined);
  assert.is((next.structuredContent as { evidence: Array<{ path: string }> }).evidence[0].path, 'src/mobileai_rag/config.py');
}

/** A line of the repository's audit log. */
export interface AuditLine { client: string; tool: string; arguments: { path?: string }; decision: string; code?: string; reason?: string; items?: number; total?: number; duration_ms: number }

/** The repository's audit log, line by line (none yet: []). */
export function auditLog(repo: string, env: NodeJS.ProcessEnv): AuditLine[] {
  try {
    return readFileSync(join(stateDirFor(canonicalRoot(repo), env), 'audit.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditLine);
  } catch { return []; }
}

/**
 * A call the host cancels after it reached the daemon is audited `cancelled`,
 * without the items the host never received, though the daemon's work on it
 * ends with an answer once the daemon runs again (an SDK client's timeout
 * cancels a call the same way: notifications/cancelled). Told apart from
 * every other call by its `path`.
 */
export async function checkCancelledAudit(mcp: McpClient, repo: string, env: NodeJS.ProcessEnv): Promise<void> {
  const path = 'src/the-host-gave-up';
  await whileDaemonStopped(repo, env, async (stopped) => {
    const ac = new AbortController();
    const pending = mcp.callTool({ name: 'read_git_diff', arguments: { path } }, undefined, { signal: ac.signal });
    const rejected = pending.then(() => assert.unreachable('the host gave up on the call'), (e: unknown) => e);
    await stopped.reached();
    ac.abort('the host gave up');
    // The cancellation reaches the daemon before it runs again: it reads the call, starts git, then reads that.
    await stopped.reached();
    assert.ok(await rejected, 'rejected');
  });
  const line = await waitFor('the call in the audit log', () => auditLog(repo, env).find((l) => l.arguments.path === path));
  assert.equal([line.decision, line.reason, line.items, line.total], ['cancelled', 'request cancelled by the client', undefined, undefined], JSON.stringify(line));
}
