// The one way evidex runs git, for every layer (the indexer's ignore sources
// and read_git_diff, root discovery in root.ts): execFile with a fixed argument
// list (never a shell), a time limit and an output cap. Callers need different
// doors closed and read failures differently (discover/git-sources.ts: any
// failure means "no git here"; query/git-diff.ts: each failure is a refusal
// with its own reason; root.ts: no work tree), so each passes its own options
// and environment, and a failure comes back as a value to map. gitEnv builds
// the indexer's environment, stripped of the caller's GIT_* variables (they
// could point git at another repository or make it run something).
import { execFile } from 'node:child_process';

export interface GitRunOptions {
  /** Options before the subcommand (`--no-pager`, `-c key=value`...). */
  globalArgs: readonly string[];
  /** The whole environment git runs in (see gitEnv). */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Bytes of output (stdout or stderr) past which git is killed. */
  maxBuffer: number;
}

export type GitOutcome =
  /** git ran and exited; `code` 0 is success (a spawn error other than the ones below counts as code 1). */
  | { kind: 'exited'; code: number; stdout: Buffer; stderr: Buffer }
  /** git is not installed or not on PATH. */
  | { kind: 'missing' }
  /** The output passed maxBuffer. */
  | { kind: 'too_large' }
  /** Killed after timeoutMs (or by a signal). */
  | { kind: 'timed_out' };

export function runGit(cwd: string, args: readonly string[], opts: GitRunOptions): Promise<GitOutcome> {
  return new Promise((resolve) => {
    execFile('git', [...opts.globalArgs, ...args], {
      cwd, env: opts.env, shell: false, encoding: 'buffer', timeout: opts.timeoutMs, maxBuffer: opts.maxBuffer, windowsHide: true,
    }, (err, stdout, stderr) => {
      if (!err) { resolve({ kind: 'exited', code: 0, stdout, stderr }); return; }
      const e = err as NodeJS.ErrnoException & { code?: number | string; killed?: boolean; signal?: string };
      if (e.code === 'ENOENT') resolve({ kind: 'missing' });
      else if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') resolve({ kind: 'too_large' });
      else if (e.killed || e.signal) resolve({ kind: 'timed_out' });
      else resolve({ kind: 'exited', code: typeof e.code === 'number' ? e.code : 1, stdout, stderr });
    });
  });
}

export interface GitEnvOptions {
  /** GIT_* variables of the caller that stay (the rest are removed). */
  keep?: readonly string[];
  /** Other variables of the caller to remove. */
  drop?(name: string): boolean;
  /** Set last, over whatever the caller had. */
  set: Readonly<Record<string, string>>;
}

/** The caller's environment (process.env as it is now) without its GIT_* variables, plus fixed settings. */
export function gitEnv(o: GitEnvOptions): NodeJS.ProcessEnv {
  const keep = new Set(o.keep);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('GIT_') ? !keep.has(k) : o.drop?.(k)) continue;
    env[k] = v;
  }
  return { ...env, ...o.set };
}
