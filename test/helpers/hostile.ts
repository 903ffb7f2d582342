// A hostile repository for the tests of what a person reads (issue 30, point
// 1): the terminal sequences an attacker puts in code lines, file names and a
// model's answer, a real git repository holding them, a run of evidex in a
// real pseudo-terminal (util-linux `script`) with every byte it wrote, and the
// check of those bytes: nothing but evidex's own colours and line handling.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, PROJECT_ROOT, tempDir } from './fs.js';

export const BIN = join(PROJECT_ROOT, 'dist', 'client', 'bin.js');

/** Each sequence of the issue, as an attacker writes it. */
export const EVIL_SEQUENCES = {
  osc52: '\x1b]52;c;aGFja2Vk\x1b\\',                              // writes the clipboard
  clear: '\x1b[2J\x1b[H',                                           // clears the screen, cursor home
  cursor: '\x1b[5A\x1b[2K',                                         // up five lines, erase one: forges results above
  title: '\x1b]0;owned\x07',                                        // sets the window title
  link: '\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\',    // a hyperlink that points elsewhere
  c1csi: '\u009b2J',                                                // the 8-bit CSI: clears on terminals that take C1
  bel: '\x07',
  rlo: '\u202e',                                                    // right-to-left override (Trojan Source)
  conceal: '\x1b[8m',                                               // hides what follows
} as const;
export type EvilName = keyof typeof EVIL_SEQUENCES;

/** The shown form of a sequence (docs/cli.md): every character the rule names escaped, TAB and line breaks too. */
export function escaped(s: string): string {
  return [...s].map((c) => (/[\p{Cc}\p{Bidi_Control}\p{Zl}\p{Zp}]/u.test(c)
    ? (c.codePointAt(0)! <= 0xff ? `\\x${c.codePointAt(0)!.toString(16).padStart(2, '0')}` : `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`)
    : c)).join('');
}

/** The shown form of a file name: as `escaped` (which leaves no TAB or line break either), and `\` shown as `\\`. */
export function escapedPath(s: string): string {
  return [...s].map((c) => (c === '\\' ? '\\\\' : escaped(c))).join('');
}

/** A sequence usable in a file name: no `/` (the hyperlink's URL has some). */
const inName = (s: string): string => s.replace(/\//g, '_');

export interface HostileRepo {
  root: string;
  /** The repository paths of the files with a sequence in their name, by sequence. */
  names: Record<EvilName, string>;
  /** A file name holding a line break that would forge a result line. */
  forged: string;
}

/**
 * A git repository whose code lines (`pkg/evil.py`, with definitions and
 * imports for `symbol` and `importers`) and file names hold every sequence,
 * with an uncommitted change holding them too (for `diff`). Every line with a
 * sequence holds the word MARK; `rootName` may carry sequences as well.
 */
export function hostileRepo(rootName = 'hostile'): HostileRepo {
  const root = join(tempDir('hostile'), rootName);
  mkdirSync(join(root, 'pkg'), { recursive: true });
  const seqs = Object.entries(EVIL_SEQUENCES) as Array<[EvilName, string]>;
  const code = [
    'import evil_target  # MARK import ' + EVIL_SEQUENCES.osc52,
    '',
    ...seqs.map(([n, s]) => `${n} = 'MARK ${s} end'`),
    '',
    `def evil_fn():  # MARK def ${EVIL_SEQUENCES.title}${EVIL_SEQUENCES.clear}`,
    `    return '${EVIL_SEQUENCES.rlo} MARK body'`,
    '',
  ].join('\n');
  writeFileSync(join(root, 'pkg', 'evil.py'), code);
  writeFileSync(join(root, 'pkg', '__init__.py'), '');
  writeFileSync(join(root, 'evil_target.py'), 'VALUE = 1\n');
  const names = {} as Record<EvilName, string>;
  for (const [n, s] of seqs) {
    const rel = `pkg/MARK_${n}_${inName(s)}.py`;
    writeFileSync(join(root, rel), `import evil_target  # MARK in a hostile name\n`);
    names[n] = rel;
  }
  const forged = 'pkg/MARK_x.py:1: forged line\nreal.py';
  writeFileSync(join(root, forged), 'import evil_target  # MARK forged\n');
  git(root, ['init', '-q']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-qm', 'init']);
  // An uncommitted change, for `evidex diff`.
  writeFileSync(join(root, 'pkg', 'evil.py'), `${code}${seqs.map(([n, s]) => `changed_${n} = 'MARK ${s}'`).join('\n')}\n`);
  writeFileSync(join(root, forged), 'import evil_target  # MARK forged, changed\n');
  return { root, names, forged };
}

/** evidex's own control sequences: its colours (local/human.ts's set, reverse video for escapes) and its line handling. */
const OWN = /\x1b\[(?:0|1|2|7|27|31|32|33|35|36|1;31)m|\r\x1b\[2K|\x1b\[K|\r|\n|\t/g;
/** What readline draws besides: the prompt's cursor moves and erasures (evidex chat only). */
export const READLINE = /\x1b\[\d*[GJKAB]/g;

/** Every control sequence or character in `raw` that evidex did not write of its own, with a little context. */
export function strayControls(raw: string, alsoAllowed?: RegExp): string[] {
  let rest = raw.replace(OWN, '');
  if (alsoAllowed) rest = rest.replace(alsoAllowed, '');
  const out: string[] = [];
  for (const m of rest.matchAll(/[\p{Cc}\p{Bidi_Control}\p{Zl}\p{Zp}]/gu)) {
    out.push(JSON.stringify(rest.slice(Math.max(0, m.index - 12), m.index + 12)));
  }
  return out;
}

export const hasScript = spawnSync('script', ['--version']).status === 0;

export interface PtyRun { code: number | null; raw: string }

/**
 * Runs `evidex ARGS` in a real pseudo-terminal (`script`), so stdout and
 * stderr are a terminal (colours and spinner on, as a person sees them), and
 * returns every byte written to it. `input` lines are typed one at a time,
 * each once the output shows `waitFor` (a prompt), when given.
 */
export async function inPty(args: string[], env: NodeJS.ProcessEnv, opts: { input?: string[]; prompt?: string; timeoutMs?: number } = {}): Promise<PtyRun> {
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = [process.execPath, BIN, ...args].map(quote).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', cmd, '/dev/null'], {
    env: { ...env, TERM: 'xterm-256color', NO_COLOR: '', COLUMNS: '160', LINES: '50' },
    stdio: [opts.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let raw = '';
  const pending = [...(opts.input ?? [])];
  let prompts = 0;
  const feed = (): void => {
    const seen = opts.prompt ? raw.split(opts.prompt).length - 1 : Infinity;
    while (pending.length && seen > prompts) { prompts++; child.stdin!.write(`${pending.shift()}\r`); }
  };
  child.stdout!.on('data', (b: Buffer) => { raw += b.toString('utf8'); if (opts.input) feed(); });
  child.stderr!.on('data', (b: Buffer) => { raw += b.toString('utf8'); });
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  clearTimeout(timer);
  return { code, raw };
}
