// Real-world Python corpora for tests: the machine's own standard library
// (found at run time, never a hard-coded path) and directory listings of .py files.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

let cachedStdlib: string | null = null;

/** Absolute path of python3's standard library (`sysconfig` "stdlib"). */
export function stdlibRoot(): string {
  if (cachedStdlib === null) {
    cachedStdlib = execFileSync('python3', ['-c', "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' }).trim();
  }
  return cachedStdlib;
}

/** POSIX paths, relative to `root`, of every `.py` file below it, sorted; folders named in skipDirs are not entered, symlinks are not followed. */
export function listPyFiles(root: string, opts: { skipDirs?: readonly string[] } = {}): string[] {
  const skip = new Set(opts.skipDirs ?? []);
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(rel === '' ? root : join(root, rel), { withFileTypes: true })) {
      const p = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!skip.has(e.name)) walk(p);
      } else if (e.isFile() && e.name.endsWith('.py')) {
        out.push(p);
      }
    }
  };
  walk('');
  return out.sort();
}
