// `evidex mcp` started without --repo in a folder evidex does not index
// unasked (here the home folder, as a host that starts its servers in the
// user's home does): the tools are listed, as a host asks first, and each tool call is a refusal in the form docs/mcp.md
// promises (`code: reason`), whose advice is for the host's configuration,
// not a command line; nothing is started or written.
import { spawn } from 'node:child_process';
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TOOL_NAMES, toolDescriptors } from '../indexer/query/schemas.js';
import { waitFor } from './helpers/daemon.js';
import { PROJECT_ROOT, cleanupTemp, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');

test('in the home folder without --repo: tools/list lists the tools, and tools/call answers index_unavailable with the --repo to configure', async () => {
  const fakeHome = realpathSync(tempDir('mcp-userhome'));
  writeFileSync(join(fakeHome, 'notes.txt'), 'hello from home\n');
  const home = join(tempDir('mcp-unnamed-state'), 'evidex');
  const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: fakeHome, env: { ...process.env, HOME: fakeHome, EVIDEX_HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
  const messages = (): any[] => out.split('\n').slice(0, -1).map((l) => JSON.parse(l));
  const ask = async (msg: Record<string, unknown>): Promise<any> => {
    child.stdin.write(`${JSON.stringify(msg)}\n`);
    return waitFor(`the answer to ${String(msg.id)}`, () => messages().find((m) => m.id === msg.id), 30_000, 10);
  };
  try {
    await ask({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'a-host', version: '0' } } });
    // Every host lists the tools first: an error here (once -32603) is a server the host shows as failed,
    // and the refusal below, written for the host's configuration, would never reach anyone.
    const list = await ask({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    assert.equal(list.result?.tools?.map((t: { name: string }) => t.name), TOOL_NAMES, JSON.stringify(list));
    assert.equal(list.result.tools.map((t: { inputSchema: unknown }) => t.inputSchema), toolDescriptors().map((d) => d.inputSchema));
    const r = await ask({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'hello' } } });
    assert.is(r.result?.isError, true, JSON.stringify(r));
    const text: string = r.result.content[0].text;
    assert.ok(text.startsWith(`index_unavailable: not indexing ${fakeHome} unasked (evidex mcp was started there without --repo): it is your home folder; `), text);
    assert.match(text, `"args": ["mcp", "--repo", "/absolute/path/to/your/repo"]`);
    assert.not.match(text, 'name it with --repo');
    assert.not.match(text, '\n');
    assert.not.ok(existsSync(home), 'nothing started, nothing written');
  } finally {
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
  }
});

test.after(() => cleanupTemp());

test.run();
