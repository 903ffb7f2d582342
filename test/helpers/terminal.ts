// A real terminal for tests: a tmux session (160×50, as a person's window) that
// runs one evidex command line, whose visible screen the test then reads. What a
// redirected stream cannot show — a line cleared by a spinner, colours, an
// answer that stays on screen — shows here. Tests that need it register
// through testUnless(lacks.tmux()) (skip.ts), so without tmux they are skipped.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from './daemon.js';
import { PROJECT_ROOT } from './fs.js';

export const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');

/** One word for sh, whatever it holds. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Each session runs on a tmux server of its own (`-L NAME`), so a test never
 * shares a server with another test file, another checkout's suite or a person
 * at the same machine: a `tmux kill-server` anywhere else cannot end it.
 */
export class TmuxSession {
  /**
   * The server's socket name. A new one for every start: a server just told to
   * exit may still hold its socket, and a new server on the same name then
   * fails with "server exited unexpectedly".
   */
  private socket: string;
  private starts = 0;

  constructor(readonly name: string) {
    this.socket = `${name}-${process.pid}`;
  }

  private tmux(args: string[]): { status: number | null; stdout: string; stderr: string } {
    return spawnSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /**
   * Starts `evidex ARGS` with `env` in a fresh session (160×50 unless `size`); the command line ends
   * with `[exit N]` on screen and the window stays open for reading.
   */
  start(args: string[], env: Record<string, string>, size: { columns: number; rows: number } = { columns: 160, rows: 50 }): void {
    this.kill();
    this.socket = `${this.name}-${process.pid}-${++this.starts}`;
    const vars = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`).join(' ');
    const cmd = `env ${vars} ${shellQuote(process.execPath)} ${shellQuote(BIN)} ${args.map(shellQuote).join(' ')}; echo "[exit $?]"; sleep 60`;
    const r = this.tmux(['new-session', '-d', '-s', this.name, '-x', String(size.columns), '-y', String(size.rows), cmd]);
    if (r.status !== 0) throw new Error(`tmux new-session: ${String(r.stderr)}`);
  }

  /** The visible screen (`scrollback` lines above it too); `escapes` keeps colour codes. */
  screen(opts: { escapes?: boolean; scrollback?: number } = {}): string {
    const args = ['capture-pane', '-p', ...(opts.escapes ? ['-e'] : []), ...(opts.scrollback ? ['-S', `-${opts.scrollback}`] : []), '-t', this.name];
    return this.tmux(args).stdout;
  }

  /**
   * Waits (reading the screen every 100 ms) until it shows `want` — a string
   * it contains, or a pattern it matches — and returns that screen; `what`
   * names what is awaited in the timeout's message.
   */
  until(what: string, want: string | RegExp, opts: { escapes?: boolean; scrollback?: number; timeoutMs?: number } = {}): Promise<string> {
    return waitFor(what, () => {
      const s = this.screen(opts);
      return (typeof want === 'string' ? s.includes(want) : want.test(s)) ? s : null;
    }, opts.timeoutMs ?? 20_000, 100);
  }

  /** The pane's title (what an OSC 0 sequence would set). */
  title(): string {
    const r = this.tmux(['display', '-p', '-t', this.name, '#{pane_title}']);
    if (r.status !== 0) throw new Error(`tmux display: ${r.stderr}`);
    return r.stdout;
  }

  keys(...k: string[]): void {
    this.tmux(['send-keys', '-t', this.name, ...k]);
  }

  /** Ends the session and, with it, its server. */
  kill(): void {
    this.tmux(['kill-server']);
  }
}
