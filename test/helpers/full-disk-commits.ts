// A child process for test/commit-room.test.ts: an index whose state folder
// is on a small disk its parent mounted, brought to a state a daemon that has
// run a while is in (free pages inside the data file: 20 files of 200 lines
// written and removed, then one more small commit), the disk filled to the
// last byte, and then the commits a watcher would try on it: the state mark,
// 300-line files one at a time (a `defs` row of three pages and a `text` row
// of more than one page each), a file of 20 KB of text, and the mark back.
// Each is refused with no_space or lands; one that lands must not have
// needed a page the disk has no room for. LMDB's own error path for that
// ("Write error: …" on stderr) corrupts the heap, which is why this runs in
// a process of its own. Prints one JSON line: what landed, what was refused,
// and the data file's size when the disk was filled and at the end.
//
// Usage: node full-disk-commits.js STATE_DIR WORK_DIR
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEvidexIndex } from '../../indexer/index.js';
import { isNoSpace } from '../../indexer/write-failure.js';
import { fillDisk } from './full-disk.js';
import { git } from './fs.js';

const [stateDir, work] = process.argv.slice(2);
const root = join(work, 'repo');
mkdirSync(join(root, 'during'), { recursive: true });
for (let i = 0; i < 20; i++) writeFileSync(join(root, `m${i}.py`), `def before_${i}():\n    return ${i}\n`);
git(root, ['init', '-q']);
const index = await openEvidexIndex(root, { stateDir });
const data = join(stateDir, 'index', 'data.mdb');
const landed: string[] = [];
const refused: string[] = [];
/** One commit the watcher or a refresh would try: refused with no_space, or landed. */
async function attempt(name: string, fn: () => Promise<unknown> | unknown): Promise<void> {
  try {
    await fn();
    landed.push(name);
  } catch (e) {
    if (!isNoSpace(e)) throw e;
    refused.push(name);
  }
}
const writeFile = (p: string, text: string) => writeFileSync(join(root, p), text);
try {
  await index.refresh();
  mkdirSync(join(root, 'churn'));
  const churn = Array.from({ length: 20 }, (_, i) => `churn/c${i}.py`);
  churn.forEach((p, i) => writeFile(p, `CHURN_${i} = 1\n`.repeat(200)));
  await index.update(churn);
  rmSync(join(root, 'churn'), { recursive: true });
  await index.update(churn);
  writeFile('after.py', 'AFTER = 1\n');
  await index.update(['after.py']);

  fillDisk(join(stateDir, 'filler'));
  const sizeAtFill = statSync(data).size;
  await attempt('state building', () => index.store.setState('building'));
  for (let i = 0; i < 12; i++) {
    const p = `during/f${i}.py`;
    writeFile(p, Array.from({ length: 300 }, (_, j) => `MARK_${i}_${j} = ${j}`).join('\n') + '\n');
    await attempt(p, () => index.update([p]));
  }
  let big = '';
  for (let i = 0; big.length < 20_000; i++) big += `BIG_${i} = ${(i * 7919) % 100003}  # ${((i * 2654435761) >>> 0).toString(36)}\n`;
  writeFile('during/big.py', big);
  await attempt('during/big.py', () => index.update(['during/big.py']));
  await attempt('state ready', () => index.store.setState('ready'));
  console.log(JSON.stringify({ landed, refused, sizeAtFill, size: statSync(data).size }));
} finally {
  await index.close();
}
