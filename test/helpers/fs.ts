// Real files and real git for tests: temp folders that a test file removes at
// its end, trees written from a path → content map, git run hermetically, and
// where the project and its bundled fixture repository are. Every suite that
// needs one of these takes it from here, so they behave the same everywhere.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (dist/test/helpers → ../../..). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The bundled fixture repository, fixtures/mobileai-local-rag. */
export const FIXTURE = join(PROJECT_ROOT, 'fixtures', 'mobileai-local-rag');

const made: string[] = [];
let removedAtExit = false;
/**
 * A new empty folder `evidex-TAG-XXXXXX` under the system temp folder, by its
 * real path (so paths a test builds compare equal to the ones the indexer
 * resolves, even where the temp folder is reached through a symlink).
 * Removed by cleanupTemp, and at the latest when the test file's process
 * exits, so a file whose suites forget it leaves nothing behind.
 */
export function tempDir(tag: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), `evidex-${tag}-`)));
  if (!removedAtExit) { removedAtExit = true; process.once('exit', cleanupTemp); }
  made.push(d);
  return d;
}
/** Removes every folder made through tempDir so far (a file's test.after calls it to free them early). */
export function cleanupTemp(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Writes each file of the map under `root`, creating folders as needed. */
export function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

/**
 * Runs git in `cwd` and returns its stdout; throws with git's stderr when it
 * fails. Hermetic, so a developer's setup cannot change what a test sees: no
 * user or system config, none of the caller's GIT_* variables, the C locale,
 * and a fixed committer. `extraEnv` adds variables (e.g. GIT_CONFIG_COUNT).
 */
export function git(cwd: string, args: string[], extraEnv: Record<string, string> = {}): string {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' }, extraEnv);
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args],
    { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: exit ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** Every TypeScript file under `dir`, at any depth (the source a check reads). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}
