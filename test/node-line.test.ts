// The one line that says Node.js is not on a supported line: what counts as
// supported (package.json's engines, word for word), and where the line goes
// — stderr only, first, with the command's own prefix, for the CLI, the MCP
// server and the daemon — on whatever Node runs the suite. test/run.mjs turns
// it off for every other test (EVIDEX_NODE_WARNING=0); here it is turned on.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NODE_WARNING_ENV, SUPPORTED_NODE, supportedNode, unsupportedNodeWarning } from '../local/node-line.js';
import { cleanupTemp, PROJECT_ROOT, tempDir } from './helpers/fs.js';

const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');
const DAEMON = join(PROJECT_ROOT, 'dist', 'daemon', 'main.js');

test('the supported lines are package.json\'s engines, word for word', () => {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  assert.is(SUPPORTED_NODE, pkg.engines.node);
});

test('supported: 22 from 22.12, 24, 26; not 20, 22.11, 23, 25 or 28', () => {
  const yes = ['22.12.0', '22.23.5', '24.0.0', '24.22.3', '26.12.1'];
  const no = ['20.20.2', '22.11.9', '22.0.0', '23.11.0', '25.2.1', '28.0.0', '18.20.8'];
  assert.equal(yes.filter((v) => !supportedNode(v)), []);
  assert.equal(no.filter((v) => supportedNode(v)), []);
  assert.is(unsupportedNodeWarning('24.1.0', {}), null);
  assert.is(unsupportedNodeWarning('20.20.2', { [NODE_WARNING_ENV]: '0' }), null);
  assert.is(unsupportedNodeWarning('20.20.2', {}), `warning: Node.js 20.20.2 is not one evidex supports (${SUPPORTED_NODE}) and is not tested on; EVIDEX_NODE_WARNING=0 silences this line`);
});

/** This Node's line as each entry says it, first on stderr; none on a supported line. */
function expected(prefix: string): string[] {
  const w = unsupportedNodeWarning(process.versions.node, {});
  return w === null ? [] : [`${prefix}: ${w}`];
}

const run = (file: string, args: string[], env: NodeJS.ProcessEnv = {}) => {
  const { [NODE_WARNING_ENV]: _off, ...rest } = process.env;
  return spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', input: '', env: { ...rest, EVIDEX_HOME: tempDir('node-line-home'), ...env }, timeout: 30_000 });
};

test(`on this Node (${process.versions.node}): the CLI, the MCP server and the daemon say it on stderr first, never on stdout`, () => {
  const version = run(BIN, ['--version']);
  assert.equal([version.status, version.stdout, version.stderr], [0, `${JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version}\n`, expected('evidex').map((l) => `${l}\n`).join('')]);
  const missing = join(tempDir('node-line'), 'gone');
  const json = run(BIN, ['index', '--json', '--repo', missing]);
  assert.equal(JSON.parse(json.stdout), { error: { code: 'invalid_arguments', message: `no such folder: ${missing}` } }, 'stdout stays the JSON (here: the error)');
  assert.is(json.stderr, expected('evidex').map((l) => `${l}\n`).join(''));
  const mcp = run(BIN, ['mcp', '--repo', missing]);
  assert.is(mcp.stdout, '', 'stdout is the protocol\'s alone');
  assert.equal(mcp.stderr.trim().split('\n'), [...expected('evidex mcp'), `evidex mcp: no such folder: ${missing}`]);
  const daemon = run(DAEMON, ['--repo', missing]);
  assert.equal(daemon.stderr.trim().split('\n'), [...expected('evidex daemon'), `evidex daemon: no such folder: ${missing}`]);
  const off = run(BIN, ['--version'], { [NODE_WARNING_ENV]: '0' });
  assert.is(off.stderr, '');
});

test.after(() => cleanupTemp());

test('a Node too old for the CLI (no process.getBuiltinModule: before 20.16 and 22.3) gets one line and exit 1, not a TypeError', () => {
  const { [NODE_WARNING_ENV]: _off, ...rest } = process.env;
  const older = `data:text/javascript,${encodeURIComponent('delete process.getBuiltinModule;')}`;
  const r = spawnSync(process.execPath, ['--import', older, BIN, '--version'], { encoding: 'utf8', input: '', env: { ...rest, EVIDEX_HOME: tempDir('node-line-old') }, timeout: 30_000 });
  assert.is(r.status, 1, r.stderr);
  assert.is(r.stdout, '');
  assert.is(r.stderr, `evidex: Node.js ${process.versions.node} cannot run evidex (it has no process.getBuiltinModule); evidex supports ${SUPPORTED_NODE}\n`);
});

test.run();
