// A first start that fails takes back what it made (client/failed-start.ts;
// on a full disk: daemon-full-disk.test.ts). One that fails for another
// reason (here its port is taken) keeps its log, moved to the temp folder and
// named in the one error line, and leaves no state folder.
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { test as uvu } from 'uvu';
import { keptLogPath } from '../client/failed-start.js';
import { stateDirFor } from '../local/state.js';
import { evidex } from './helpers/cli.js';
import { daemonEnv, fixtureCopy } from './helpers/daemon.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

uvu.after(() => cleanupTemp());

uvu('a first start that fails for another reason: one line with its log\'s last line, the log kept in the temp folder, no state folder', async () => {
  const busy: Server = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  const port = (busy.address() as { port: number }).port;
  const root = fixtureCopy({ git: true });
  const home = join(tempDir('home'), 'evidex');
  const stateDir = stateDirFor(root, daemonEnv(home));
  try {
    const r = await evidex(['symbol', 'load_settings'], { cwd: root, home, env: { EVIDEX_PORT: String(port) } });
    assert.is(r.code, 1, r.stdout + r.stderr);
    const kept = keptLogPath(stateDir);
    assert.equal(r.stderr.split('\n').filter((l) => l.length > 0), [
      `evidex: the evidex daemon for ${root} exited at start (status 1): evidex daemon: listen EADDRINUSE: address already in use 127.0.0.1:${port}; log: ${kept}`,
    ]);
    assert.match(readFileSync(kept, 'utf8'), /server error: listen EADDRINUSE/);
    assert.not.ok(existsSync(home), 'EVIDEX_HOME, made by this start, is gone with the state folder');
  } finally {
    busy.close();
    rmSync(keptLogPath(stateDir), { force: true });
  }
});

uvu.run();
