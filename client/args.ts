// Strict command-line parsing for the CLI: every command declares its flags;
// an unknown flag, a repeated one, a missing value, a value not among the
// flag's choices or a malformed number is a one-line usage error (exit 2),
// never a guess.

export type FlagKind = 'boolean' | 'string' | 'int';
export interface FlagSpec {
  kind: FlagKind;
  help: string;
  /** The value's placeholder in --help (default N or VALUE). */
  value?: string;
  /** The only values a string flag takes. */
  choices?: readonly string[];
  /** A path as the user typed it: relative to the current folder, turned root-relative by the command. */
  path?: boolean;
}
export type FlagSpecs = Record<string, FlagSpec>;

export class UsageError extends Error {
  constructor(message: string) { super(message); this.name = 'UsageError'; }
}

export interface Parsed {
  positionals: string[];
  flags: Record<string, string | number | boolean | undefined>;
}

/** Parses `argv` against `specs` (`--flag`, `--flag value`, `--flag=value`; `--` ends flags). */
export function parseArgs(argv: readonly string[], specs: FlagSpecs): Parsed {
  const out: Parsed = { positionals: [], flags: {} };
  let flagsDone = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (flagsDone || !a.startsWith('--') || a === '-') {
      // A lone "-x" looks like a flag to a user; refuse it rather than treat it as a query.
      if (!flagsDone && /^-[A-Za-z]$/.test(a) && a !== '-h') throw new UsageError(`unknown option ${a}`);
      if (!flagsDone && a === '-h') {
        if (out.flags.help !== undefined) throw new UsageError('--help given more than once');
        out.flags.help = true;
        continue;
      }
      out.positionals.push(a);
      continue;
    }
    if (a === '--') { flagsDone = true; continue; }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq === -1 ? undefined : eq);
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (!spec) throw new UsageError(`unknown option --${name}`);
    // `--repo a --repo b` would silently take one of them: say so instead.
    if (out.flags[name] !== undefined) throw new UsageError(`--${name} given more than once`);
    if (spec.kind === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      out.flags[name] = true;
      continue;
    }
    const value = eq !== -1 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    if (spec.kind === 'int') {
      if (!/^\d+$/.test(value)) throw new UsageError(`--${name} takes a whole number, got ${JSON.stringify(value)}`);
      out.flags[name] = Number(value);
    } else {
      if (spec.choices && !spec.choices.includes(value)) {
        throw new UsageError(`--${name} takes ${spec.choices.join(', ')}; got ${JSON.stringify(value)}`);
      }
      out.flags[name] = value;
    }
  }
  return out;
}

/** Lines describing `specs` for --help. */
export function describeFlags(specs: FlagSpecs): string {
  const rows = Object.entries(specs).map(([name, s]) => [`--${name}${s.kind === 'boolean' ? '' : ` ${s.value ?? (s.kind === 'int' ? 'N' : 'VALUE')}`}`, s.help]);
  const width = Math.max(...rows.map(([f]) => f.length));
  return rows.map(([f, h]) => `  ${f.padEnd(width)}  ${h}`).join('\n');
}
