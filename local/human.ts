// Everything evidex writes for a person to read — CLI results, hints, errors,
// progress, answers, reports, the daemon's log — goes through this module, on
// a terminal and in a pipe alike. A repository is hostile input: a line of a
// file, a file name or a model's answer may hold bytes a terminal obeys (OSC 52
// writes the clipboard, `ESC[2J` clears the screen, OSC 8 makes a link point
// elsewhere, U+202E reorders what is shown). So text from outside evidex is
// made inert here, in one documented form (docs/cli.md, "Control characters"):
//
//   - a control character (Unicode Cc: C0 but TAB, DEL, C1) becomes `\xHH`;
//   - a bidirectional control (Bidi_Control: U+061C, U+200E, U+200F,
//     U+202A–U+202E, U+2066–U+2069) or a line or paragraph separator
//     (U+2028, U+2029) becomes `\uHHHH`;
//   - a line break is kept only where text is meant to span lines (`text`);
//     in a one-line field (`line`) and in a file name (`path`) it is escaped,
//     so nothing from outside can start a line of its own; a file name also
//     shows TAB escaped and `\` as `\\`, so a printed name stands for exactly
//     one name.
//
// On a terminal with colours on, each escape is shown in reverse video, so it
// cannot be taken for the same characters typed in the file; evidex's own
// colours and its spinner are the only control sequences written, and they
// are made here too. What is printed is a `Shown`: only this module makes one,
// so text that has not passed the rule cannot reach a `Screen` (test/human
// checks that nothing else writes to a stream). `--json` keeps the exact text:
// `Screen.json` writes JSON, with the characters above as `\u` escapes.

import { graphemes, graphemeWidth } from './width.js';

/**
 * The characters shown escaped (docs/cli.md): Cc, Bidi_Control, Zl, Zp,
 * written out (test/human checks them against those properties over every
 * BMP code point). A `\p{…}` class would have ICU build its sets the first
 * time each regexp runs: ~0.5 ms of CPU each, in every CLI call
 * (docs/performance/cli-start.md).
 */
const UNSAFE_CHARS = '\\0-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029';
const UNSAFE = new RegExp(`[${UNSAFE_CHARS}]`, 'u');
/** One run of them. */
const UNSAFE_RUN = new RegExp(`[${UNSAFE_CHARS}]+`, 'gu');
/** One run of them or of backslashes, which `path` doubles. */
const UNSAFE_OR_BACKSLASH_RUN = new RegExp(`[${UNSAFE_CHARS}\\\\]+`, 'gu');

const ESC = '\x1b';
const CSI = `${ESC}[`;
const REVERSE = `${CSI}7m`;
const REVERSE_OFF = `${CSI}27m`;
const RESET = `${CSI}0m`;

/** The escaped form of one character: `\xHH` up to U+00FF, `\uHHHH` above. */
function escapeChar(c: string): string {
  const n = c.codePointAt(0)!;
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
}

const MINT = Symbol('Shown');

/**
 * Text fit to write for a person: evidex's own words, or outside text made
 * inert. `plain` is what a pipe or a colourless terminal gets; `rich` adds
 * evidex's colours and shows every escape in reverse video.
 */
export class Shown {
  constructor(mint: typeof MINT, readonly plain: string, readonly rich: string) {
    if (mint !== MINT) throw new Error('a Shown is made only by local/human.ts');
  }
  toString(): string { return this.plain; }
}

const shown = (plain: string, rich: string = plain): Shown => new Shown(MINT, plain, rich);

/** `s` with every unsafe character escaped; `keep` tells which ones stay as they are (TAB, the line break). */
function render(s: string, keep: (c: string) => boolean, backslash: boolean): Shown {
  if (!UNSAFE.test(s) && !(backslash && s.includes('\\'))) return shown(s);
  let plain = '';
  let rich = '';
  let from = 0;
  const re = backslash ? UNSAFE_OR_BACKSLASH_RUN : UNSAFE_RUN;
  for (const m of s.matchAll(re)) {
    const before = s.slice(from, m.index);
    plain += before;
    rich += before;
    from = m.index + m[0].length;
    // A run is escaped character by character; kept ones go out as they are, outside the highlight.
    let run = '';
    const flush = (): void => { if (run) { plain += run; rich += `${REVERSE}${run}${REVERSE_OFF}`; run = ''; } };
    for (const c of m[0]) {
      if (c === '\\') { run += '\\\\'; continue; }
      if (keep(c)) { flush(); plain += c; rich += c; continue; }
      run += escapeChar(c);
    }
    flush();
  }
  const rest = s.slice(from);
  return shown(plain + rest, rich + rest);
}

const isTab = (c: string): boolean => c === '\t';

/** Outside text on one line (a name, a message, a line of a file): every unsafe character escaped, TAB kept. */
export function line(s: string): Shown {
  return render(s, isTab, false);
}

/** Outside text that spans lines (an answer, a diff hunk): as `line`, with `\n` kept as the line break. */
export function text(s: string): Shown {
  return render(s, (c) => c === '\t' || c === '\n', false);
}

/** A file or folder name: every unsafe character escaped, TAB and line breaks included, and `\` shown as `\\`. */
export function path(s: string): Shown {
  return render(s, () => false, true);
}

/**
 * A name the index gives already in shown form — one that is not UTF-8, each
 * bad byte as `\xHH` and a backslash as `\\` (indexer/discover/names.ts) —
 * as `path` shows a name: every unsafe character escaped, but its backslashes
 * kept, since they are already the escapes (doubled, `\xff` would read as the
 * four characters, not the byte).
 */
export function escapedPath(s: string): Shown {
  return render(s, () => false, false);
}

/**
 * The name `path` showed as `s`, read back: `\\` is one backslash, `\xHH`
 * and `\uHHHH` the character escaped; null when `s` holds none of these (it
 * reads back as itself).
 */
export function readBackName(s: string): string | null {
  if (!s.includes('\\')) return null;
  let changed = false;
  const out = s.replace(/\\(?:\\|x([0-9a-f]{2})|u([0-9a-f]{4}))/g, (_m, x?: string, u?: string) => {
    changed = true;
    return x !== undefined || u !== undefined ? String.fromCodePoint(parseInt(x ?? u!, 16)) : '\\';
  });
  return changed ? out : null;
}

/** What may go into a `human` template: shown text, a number, or outside text (shown as `line`). */
export type Part = Shown | string | number | bigint | boolean | null | undefined;

function part(v: Part): Shown {
  if (v instanceof Shown) return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return shown(String(v));
  return line(String(v));
}

/**
 * evidex's own words, with what is put into them made safe: the template's
 * literal text is the code's own; every interpolated string is outside text
 * and is shown as `line` (use `text` or `path` for another form).
 */
export function human(strings: TemplateStringsArray, ...values: Part[]): Shown {
  let plain = strings[0];
  let rich = strings[0];
  values.forEach((v, i) => {
    const p = part(v);
    plain += p.plain + strings[i + 1];
    rich += p.rich + strings[i + 1];
  });
  return shown(plain, rich);
}

/** `parts` one after another, `sep` (evidex's own text) between them. */
export function join(parts: readonly Part[], sep = '\n'): Shown {
  const all = parts.map(part);
  return shown(all.map((p) => p.plain).join(sep), all.map((p) => p.rich).join(sep));
}

/** `3 changes`, `1 change`: a count and its noun, plural by English's regular -s. */
/**
 * A word (a path, an argument) as one shell word, so a printed command works as typed ('…' when it holds anything but plain characters).
 * A quote inside is written '"'"' rather than '\'': a command is shown as `path` shows text, a backslash as `\\`, which a shell would not read back.
 */
export const shellWord = (p: string): string => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'"'"'`)}'`);

export const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/**
 * A whole number with its thousands marked as English marks them (`12,000`),
 * as `n.toLocaleString('en')` writes it but without ICU: the first number
 * formatted in a process makes ICU load its number formats, ~16 ms of CPU
 * that a CLI call would pay for one figure of its help or a note.
 */
export const thousands = (n: number): string => (Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : n.toLocaleString('en'));

/** `s` padded with spaces to `width` visible characters (as `plain` counts them). */
export function padEnd(s: Part, width: number): Shown {
  const p = part(s);
  const pad = ' '.repeat(Math.max(0, width - p.plain.length));
  return shown(p.plain + pad, p.rich + pad);
}

/** The columns `s` takes once shown as `line` (an escape counts its characters). */
export function lineWidth(s: string): number {
  return graphemes(s).reduce((n, g) => n + shownWidth(g), 0);
}

function shownWidth(g: string): number {
  return UNSAFE.test(g) ? line(g).plain.length : graphemeWidth(g);
}

/**
 * Outside text on one line (as `line`), cut to at most `columns` terminal
 * columns, ending in `…` where it was cut; cut between graphemes, so an escape
 * or a wide character is never split.
 */
export function fitLine(s: string, columns: number): Shown {
  if (lineWidth(s) <= columns) return line(s);
  if (columns < 1) return shown('');
  let used = 0;
  let kept = '';
  for (const g of graphemes(s)) {
    const w = shownWidth(g);
    if (used + w > columns - 1) break;
    used += w;
    kept += g;
  }
  return human`${line(kept)}…`;
}

/** The SGR colours evidex uses (a closed set: nothing else is painted). */
export type Colour = '1' | '2' | '1;31' | '31' | '32' | '33' | '35' | '36';

/** `s` in `colour` where colours are shown; as it is elsewhere. */
export function paint(colour: Colour, s: Part): Shown {
  const p = part(s);
  return p.plain === '' ? p : shown(p.plain, `${CSI}${colour}m${p.rich}${RESET}`);
}

/** Back to the start of the line, and the line erased (a spinner's or progress line's redraw; terminals only). */
export const CLEAR_LINE = shown(`\r${CSI}2K`);
/** Back to the start of the line. */
export const RETURN = shown('\r');
/** The rest of the line erased. */
export const ERASE_RIGHT = shown(`${CSI}K`);

/** `value` as JSON, exact, with the characters `line` escapes written as `\u` escapes (JSON itself escapes only C0). */
export function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE_RUN, (run) => [...run].map((c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`).join(''));
}

/** Whether colours suit `stream`: a terminal, without NO_COLOR (https://no-color.org) or TERM=dumb. */
export function colourFits(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
}

type Sink = NodeJS.WritableStream & { isTTY?: boolean };

/** A stream a person reads: only `Shown` text (or JSON) is written to it. */
export class Screen {
  readonly isTTY: boolean;
  /** Colours and highlighted escapes: `rich` text. */
  readonly colour: boolean;

  /** The terminal's width in columns, when the stream is a terminal that says. */
  get columns(): number | undefined {
    const c = (this.stream as { columns?: unknown }).columns;
    return this.isTTY && typeof c === 'number' && c > 0 ? c : undefined;
  }

  constructor(private readonly stream: Sink, opts: { colour?: boolean; env?: NodeJS.ProcessEnv } = {}) {
    this.isTTY = Boolean(stream.isTTY);
    this.colour = opts.colour ?? colourFits(stream, opts.env);
  }

  /** The same stream with colours decided otherwise (`--color always|never`). */
  withColour(colour: boolean): Screen {
    return new Screen(this.stream, { colour });
  }

  write(s: Shown): void {
    // Anything else that reaches here (a caller outside TypeScript) is outside text.
    const p = s instanceof Shown ? s : text(String(s));
    this.stream.write(this.colour ? p.rich : p.plain);
  }

  /** `s` and a line break. */
  line(s: Shown): void {
    this.write(human`${s}\n`);
  }

  /** `value` as one line of JSON (`jsonText`), for scripts. */
  json(value: unknown): void {
    this.stream.write(`${jsonText(value)}\n`);
  }

  /** Calls `fn` on a write error (EPIPE once the reader has gone). */
  onError(fn: (e: NodeJS.ErrnoException) => void): void {
    this.stream.on('error', fn);
  }

  /** Where readline draws its prompt and echoes what the user types (the user's own input, and evidex's prompt). */
  get readlineOutput(): NodeJS.WritableStream {
    return this.stream;
  }
}

/** `target` as a Screen: itself, or a stream wrapped (tests and embedders pass streams). */
export function screenOf(target: Screen | Sink, env?: NodeJS.ProcessEnv): Screen {
  return target instanceof Screen ? target : new Screen(target, { env });
}

let out: Screen | undefined;
let err: Screen | undefined;
/** The process's stdout, as a Screen. */
export function stdout(): Screen { return (out ??= new Screen(process.stdout)); }
/** The process's stderr, as a Screen. */
export function stderr(): Screen { return (err ??= new Screen(process.stderr)); }
