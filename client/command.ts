// A command of the CLI as it is declared (client/commands/, one file each):
// its usage and help, its flags, and its run. A flag's value has the type its
// spec was made with (`flag.int` a number, `flag.choice` one of its choices),
// so a command reads `p.flags.limit` as a number without a cast. The
// command line is read strictly against the spec: an unknown flag, a repeated
// one, a missing value, a value not among the flag's choices or a malformed
// number is a one-line usage error (exit 2), never a guess.
//
// Also here, for every command: the flags they share, and what most start
// with — the repository root and a connection to its daemon for the command's
// length, both loaded only when a command runs.
import type { Client } from './connection.js';
import { expandHome, type RealRoot } from '../local/root.js';
import { nearestName } from '../local/distance.js';
import { thousands } from '../local/human.js';
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { readFileSync } = process.getBuiltinModule('node:fs');

export type FlagKind = 'boolean' | 'string' | 'int';
export interface FlagSpec<V = unknown> {
  readonly kind: FlagKind;
  readonly help: string;
  /** The value's placeholder in --help (default N or VALUE). */
  readonly value?: string;
  /** The whole numbers an int flag takes, both ends included: checked here, and said when a value is not one of them. */
  readonly range?: readonly [number, number];
  /** The only values a string flag takes. */
  readonly choices?: readonly string[];
  /** A path as the user typed it: relative to the current folder, turned root-relative by the command. */
  readonly path?: boolean;
  /** A folder on this machine: a leading `~` or `~/` is the home folder, as a shell would have made it (expandHome). */
  readonly folder?: boolean;
  /** Phantom: never set, it carries the type of the flag's value (made by `flag`). */
  readonly _value?: V;
}
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** Flag specs, each typed with the value the parser gives it. */
export const flag = {
  boolean: (help: string): FlagSpec<true> => ({ kind: 'boolean', help }),
  /** A whole number, within `range` when given; `value` is its placeholder in --help (default N). */
  int: (help: string, opts: { value?: string; range?: readonly [number, number] } = {}): FlagSpec<number> => ({ kind: 'int', help, ...opts }),
  string: (value: string, help: string, opts: { path?: boolean; folder?: boolean } = {}): FlagSpec<string> => ({ kind: 'string', value, help, ...opts }),
  /** A string that must be one of `choices`. */
  choice: <const C extends readonly string[]>(value: string, choices: C, help: string): FlagSpec<C[number]> => ({ kind: 'string', value, choices, help }),
};

/** The flags of a command line read against `F`: each one absent, or its value. */
export type Flags<F extends FlagSpecs> = { -readonly [K in keyof F]?: NonNullable<F[K]['_value']> };

export interface Parsed<F extends FlagSpecs = FlagSpecs> {
  positionals: string[];
  flags: Flags<F>;
  /** Where in `positionals` the arguments after `--` begin (absent: no `--`). */
  afterDashes?: number;
}

export class UsageError extends Error {
  constructor(message: string) { super(message); this.name = 'UsageError'; }
}

/**
 * Parses `argv` against `specs` (`--flag`, `--flag value`, `--flag=value`; `--` ends flags).
 * `command` (`evidex search`), for a command that takes an argument: an
 * unknown option near none of its own is said to go after `--` if it was
 * meant as the argument (`evidex search -- --no-deps`).
 */
export function parseArgs<F extends FlagSpecs>(argv: readonly string[], specs: F, command?: string): Parsed<F> {
  const flags: Record<string, string | number | true> = {};
  const positionals: string[] = [];
  let flagsDone = false;
  let afterDashes: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (flagsDone || !a.startsWith('--') || a === '-') {
      // A lone "-x" looks like a flag to a user; refuse it rather than treat it as a query.
      if (!flagsDone && /^-[A-Za-z]$/.test(a) && a !== '-h') throw new UsageError(`unknown option ${a}${asArgument(a, command)}`);
      if (!flagsDone && a === '-h') {
        if (flags.help !== undefined) throw new UsageError('--help given more than once');
        flags.help = true;
        continue;
      }
      positionals.push(a);
      continue;
    }
    if (a === '--') { flagsDone = true; afterDashes = positionals.length; continue; }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq === -1 ? undefined : eq);
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (!spec) throw new UsageError(unknownOption(name, Object.keys(specs), asArgument(a, command)));
    // `--repo a --repo b` would silently take one of them: say so instead.
    if (flags[name] !== undefined) throw new UsageError(`--${name} given more than once`);
    if (spec.kind === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = eq !== -1 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    if (spec.kind === 'int') {
      const n = /^\d+$/.test(value) ? Number(value) : NaN;
      const r = spec.range;
      if (Number.isNaN(n) || (r && (n < r[0] || n > r[1]))) {
        throw new UsageError(`--${name} takes a whole number${r ? ` from ${r[0]} to ${thousands(r[1])}` : ''}, got ${JSON.stringify(value)}`);
      }
      flags[name] = n;
    } else {
      if (spec.choices && !spec.choices.includes(value)) {
        throw new UsageError(`--${name} takes ${spec.choices.join(', ')}; got ${JSON.stringify(value)}`);
      }
      flags[name] = spec.folder ? expandHome(value, `--${name}`) : value;
    }
  }
  // Each value was checked against its spec above: this is where the spec's types are earned.
  return afterDashes === undefined ? { positionals, flags: flags as Flags<F> } : { positionals, flags: flags as Flags<F>, afterDashes };
}

// ---- commands --------------------------------------------------------------

export interface Command<F extends FlagSpecs = FlagSpecs> {
  usage: string;
  summary: string;
  /** More of what --help shows: what the command does in detail (client/help.ts lays it out). */
  details?: string;
  /** Command lines that work as written (in a repository with such files), shown under "examples:". */
  examples: readonly string[];
  flags: F;
  run(p: Parsed<F>): Promise<number>;
}

/** A command, its flags' types inferred from their specs. */
export function defineCommand<F extends FlagSpecs>(c: Command<F>): Command<F> {
  return c;
}

export const REPO = { repo: flag.string('DIR', 'repository root (default: git top-level of the current folder, else the folder; a leading ~/ is your home folder)', { folder: true }) };
export const JSON_FLAG = { json: flag.boolean('print JSON for scripts instead of text') };
export const HELP = { help: flag.boolean('show this help') };

/** The name the CLI gives itself to the daemon (its log and audit). */
export const CLIENT_NAME = 'cli';

/** `unknown option --via-reexport; did you mean --via-reexports?`: the nearest of the command's options, within the edits a suggested name may be (allowedDistance). */
function unknownOption(name: string, options: readonly string[], otherwise: string): string {
  const best = nearestName(name, options);
  return `unknown option --${name}${best !== null ? `; did you mean --${best}?` : otherwise}`;
}

/** `; an argument that starts with "-" goes after --: evidex search -- --no-deps`, for a command that takes one; else ''. */
function asArgument(typed: string, command: string | undefined): string {
  if (command === undefined) return '';
  const quoted = /^[\w.,:/@=+-]+$/.test(typed) ? typed : `'${typed.replace(/'/g, "'\\''")}'`;
  return `; an argument that starts with "-" goes after --: ${command} -- ${quoted}`;
}

/** Refuses a command given other than `n` arguments, with its usage and, when given, a `hint` of what the caller may have meant. */
export function needPositionals(p: { positionals: readonly string[]; afterDashes?: number }, n: number, usage: string, hint?: string): void {
  const got = p.positionals.length;
  // `evidex search ''`: an empty argument is no query, name or path; said as a usage error, not as the tool's schema words.
  if (got === n && p.positionals.includes('')) throw new UsageError(`an empty argument; usage: ${usage}`);
  if (got === n) return;
  // `evidex search -- --no-deps --limit 1`: an option written after `--` is an argument like any other.
  const late = got > n && p.afterDashes !== undefined ? p.positionals.slice(Math.max(n, p.afterDashes)).find((a) => a.startsWith('--') && a.length > 2) : undefined;
  // `evidex search def main`: words meant as one argument, which the shell split.
  // `evidex search --` (or '--', quoted: the shell passes the same): the `--` was read as the end of the options, not as the argument.
  const dashesLast = got < n && p.afterDashes === got;
  const quote = late !== undefined ? ` (got ${got}: what follows -- is read as arguments, options too; put ${late} before --)`
    : dashesLast ? ` (got ${got === 0 ? 'none' : got}: -- ends the options; to give "--" itself, write -- --)`
    : n === 1 && got > 1 ? ` (got ${got}: quote text with spaces, as in "${p.positionals.join(' ')}")` : '';
  const meant = hint === undefined ? '' : ` (${hint})`;
  throw new UsageError(`${n === 0 ? 'takes no arguments' : `expected ${n === 1 ? 'one argument' : `${n} arguments`}`}${quote}${meant}; usage: ${usage}`);
}

/** The root a command works on: --repo, else the work tree of the current folder, else the folder (local/root.ts), by its real path. */
export async function repoOf(p: { flags: { repo?: string } }): Promise<RealRoot> {
  const { placeOf } = await import('./paths.js');
  return (await placeOf(p)).root;
}


/** No --repo: the root is the current folder's, and starting to index it may be refused (index-guard.ts). */
export const unnamedRoot = (p: { flags: { repo?: string } }): boolean => p.flags.repo === undefined;

/** A command's connection to the root's daemon, starting one when none runs (the root not named with --repo is checked first: unnamedRoot). */
export async function connectCommand(root: RealRoot, p: { flags: { repo?: string } }, clientName: string = CLIENT_NAME): Promise<Client> {
  const { connect } = await import('./connection.js');
  return connect(root, { autoStart: true, clientName, unnamedRoot: unnamedRoot(p) });
}

/** Opens a connection to the root's daemon (starting one), runs `fn`, and leaves it closing (Client.leave). */
export async function withDaemon<T>(root: RealRoot, p: { flags: { repo?: string } }, fn: (c: Client) => Promise<T>, clientName: string = CLIENT_NAME): Promise<T> {
  const client = await connectCommand(root, p, clientName);
  try {
    return await fn(client);
  } finally {
    client.leave();
  }
}

/** The version in package.json (`evidex --version`, and what `evidex mcp` tells a host). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
