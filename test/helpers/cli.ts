// The real `evidex` CLI as a test runs it: one process, asynchronously (so a
// test can run several while daemons live), under a given EVIDEX_HOME, with
// nothing of the developer's shell that would change what it does (no
// EVIDEX_IDLE_TIMEOUT or EVIDEX_PORT, and an Ollama that is not there).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from './fs.js';

export const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');

export interface Run { code: number | null; stdout: string; stderr: string }

/** Runs `evidex ARGS` in `cwd` with EVIDEX_HOME=`home` (plus `env`); killed after 60 s. */
export function evidex(args: string[], opts: { cwd: string; home: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, EVIDEX_HOME: opts.home, EVIDEX_IDLE_TIMEOUT: '', EVIDEX_PORT: '', OLLAMA_HOST: 'http://127.0.0.1:9', ...opts.env },
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    p.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.once('error', reject);
    p.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}
