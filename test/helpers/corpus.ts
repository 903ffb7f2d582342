// Python corpora for tests: the machine's own standard library (found at run
// time, never a hard-coded path), listings of .py files, and the ast-based
// oracle (test/oracle/py_oracle.py) that tests compare extraction against.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isPackageInit, isPythonPath } from '../../indexer/python/modules.js';
import { tempDir } from './fs.js';

let cachedStdlib: string | null = null;

/** Absolute path of python3's standard library (`sysconfig` "stdlib"). */
export function stdlibRoot(): string {
  if (cachedStdlib === null) {
    cachedStdlib = execFileSync('python3', ['-c', "import sysconfig; print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' }).trim();
  }
  return cachedStdlib;
}

/**
 * A copy of the standard library (some two thousand files, its tests left
 * out) in a temp folder, never indexed: a first build of it lasts seconds, so
 * a command's first call waits on it long enough for the build's progress to
 * be seen.
 */
export function stdlibCopy(tag = 'first-build'): string {
  const root = join(tempDir(tag), 'stdlib');
  const skip = (src: string) => !/(__pycache__|site-packages|[/\\](test|tests|idle_test)$)/.test(src);
  cpSync(stdlibRoot(), root, { recursive: true, filter: skip });
  return realpathSync(root);
}

let cachedSitePackages: string | null | undefined;

/** Absolute path of python3's first site-packages folder (`site.getsitepackages()[0]`), or null when python3 has none. */
export function sitePackagesRoot(): string | null {
  if (cachedSitePackages === undefined) {
    const out = execFileSync('python3', ['-c', 'import site; p = site.getsitepackages(); print(p[0] if p else "")'], { encoding: 'utf8' }).trim();
    cachedSitePackages = out !== '' && existsSync(out) ? out : null;
  }
  return cachedSitePackages;
}

/** POSIX paths, relative to `root`, of every Python file (`.py` and `.pyi` stubs) below it, sorted; folders named in skipDirs are not entered, symlinks are not followed. */
export function listPyFiles(root: string, opts: { skipDirs?: readonly string[] } = {}): string[] {
  const skip = new Set(opts.skipDirs ?? []);
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(rel === '' ? root : join(root, rel), { withFileTypes: true })) {
      const p = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!skip.has(e.name)) walk(p);
      } else if (e.isFile() && isPythonPath(e.name)) {
        out.push(p);
      }
    }
  };
  walk('');
  return out.sort();
}

/** What the oracle says about one file (see test/oracle/py_oracle.py). */
export interface OracleFile {
  path: string;
  ok: boolean; // ast.parse succeeded
  defs: { name: string; qualname: string; kind: string; start: number; end: number }[];
  imports: { start: number; end: number; targets: string[] }[];
  modules: string[];
}

// Compiled to dist/test/helpers/, the source tree is three levels up.
const oracleScript = fileURLToPath(new URL('../../../test/oracle/py_oracle.py', import.meta.url));

/** Runs the oracle once (one python3 process) over `files` (POSIX, relative to root); answers in input order. */
export function runPyOracle(root: string, files: readonly string[]): OracleFile[] {
  const out = execFileSync('python3', [oracleScript], {
    input: JSON.stringify({ root, files }), encoding: 'utf8', maxBuffer: 1 << 30,
  });
  const answer = JSON.parse(out) as OracleFile[];
  if (answer.length !== files.length) throw new Error(`oracle answered for ${answer.length} of ${files.length} files`);
  return answer;
}

/**
 * Starts the oracle in the background and resolves with its answer. Request
 * and answer go through temp files rather than pipes, so python3 keeps working
 * (on the other core) while this thread is busy with synchronous work.
 */
export function startPyOracle(root: string, files: readonly string[]): Promise<OracleFile[]> {
  const dir = mkdtempSync(join(tmpdir(), 'evidex-oracle-'));
  writeFileSync(join(dir, 'request.json'), JSON.stringify({ root, files }));
  const inFd = openSync(join(dir, 'request.json'), 'r');
  const outFd = openSync(join(dir, 'answer.json'), 'w');
  const child = spawn('python3', [oracleScript], { stdio: [inFd, outFd, 'pipe'] });
  closeSync(inFd);
  closeSync(outFd);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  return new Promise<OracleFile[]>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        if (code !== 0) throw new Error(`py_oracle.py exited ${code}: ${stderr.trim().split('\n').pop()}`);
        const answer = JSON.parse(readFileSync(join(dir, 'answer.json'), 'utf8')) as OracleFile[];
        if (answer.length !== files.length) throw new Error(`oracle answered for ${answer.length} of ${files.length} files`);
        resolve(answer);
      } catch (e) {
        reject(e);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/** The folders ("" = the root) holding an `__init__.py` or `__init__.pyi` among `files` (what the index's package rule sees). */
export function packageDirsAmong(files: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const f of files) if (isPackageInit(f)) dirs.add(f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '');
  return dirs;
}
