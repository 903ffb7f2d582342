// evidex — the thin CLI. Every command that needs the index talks to the
// repository's daemon (starting it when none runs), except `evidex index` with
// no daemon running, which builds in-process so its progress can be shown.
// Exit codes: 0 ok, 2 refused (usage error, tool refusal), 1 anything else
// (client/errors.ts decides which).
//
// This file is the command table and what happens before a command runs:
// which command, its flags read against its spec, --help, "did you mean",
// and the one way an error is printed. Each command is a file of commands/,
// loaded when it runs (all of them only for the main --help); it imports
// what it needs when it runs in turn, so a call to a running daemon costs
// little more than starting Node: the command's file, the tool commands'
// shared part, the protocol's messages and transport, the connection and
// the state folder (test/cli-shell checks what a tool call loads).
import { nearestName } from '../local/distance.js';
import { human, line, stderr, stdout, text } from '../local/human.js';
import { unsupportedNodeWarning } from '../local/node-line.js';
import { parseArgs, UsageError, version, type Command } from './command.js';
import type { CommandPlace } from './command-line.js';

/** The commands in the order --help lists them, each loaded on demand. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  index: async () => (await import('./commands/index.js')).command,
  daemon: async () => (await import('./commands/daemon.js')).command,
  call: async () => (await import('./commands/call.js')).command,
  search: async () => (await import('./commands/search.js')).command,
  symbol: async () => (await import('./commands/symbol.js')).command,
  read: async () => (await import('./commands/read.js')).command,
  importers: async () => (await import('./commands/importers.js')).command,
  diff: async () => (await import('./commands/diff.js')).command,
  ask: async () => (await import('./commands/ask.js')).command,
  chat: async () => (await import('./commands/chat.js')).command,
  eval: async () => (await import('./commands/eval.js')).command,
  mcp: async () => (await import('./commands/mcp.js')).command,
  tools: async () => (await import('./commands/tools.js')).command,
};

const commandNamed = (name: string): (() => Promise<Command>) | undefined => (Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined);

async function mainHelp(): Promise<string> {
  const [{ mainHelp: layout }, commands] = await Promise.all([import('./help.js'), Promise.all(Object.values(COMMANDS).map((load) => load()))]);
  return layout(commands, [
    'Run `evidex COMMAND --help` for a command\'s options and examples; `evidex --version` prints the version. `--` ends the options.',
    'Paths on the command line are taken from the current folder, and printed from it (tools, --json and `evidex call` keep them from the root). In a subfolder, search, symbol and importers look there first (--all: the whole repository).',
    'State lives in $EVIDEX_HOME (default $XDG_CACHE_HOME/evidex, else ~/.cache/evidex).',
    'Exit status: 0 ok, 2 refused (bad arguments, tool refusal), 1 any other error; `daemon status` exits 3 when no daemon runs.',
  ]);
}

async function commandHelp(cmd: Command): Promise<string> {
  return (await import('./help.js')).commandHelp(cmd);
}

/** The command a mistyped name most likely meant: within 2 edits (1 for short names: local/distance.ts), or one it starts. */
export function nearestCommand(name: string): string | null {
  const near = nearestName(name, Object.keys(COMMANDS));
  if (near !== null) return near;
  const prefixed = Object.keys(COMMANDS).filter((c) => name.length >= 2 && c.startsWith(name.toLowerCase()));
  return prefixed.length === 1 ? prefixed[0] : null;
}

/**
 * `argv` with options given before the command moved after it (`evidex --repo
 * ../x search foo` is `evidex search --repo ../x foo`): the command is the
 * first word that names one. --help, -h and --version stay where they are.
 */
function optionsAfterCommand(argv: readonly string[]): string[] {
  const first = argv[0];
  if (first === undefined || !first.startsWith('-') || ['--help', '-h', '--version', '--'].includes(first)) return [...argv];
  const at = argv.findIndex((a) => commandNamed(a) !== undefined);
  if (at === -1) return [...argv];
  return [argv[at], ...argv.slice(0, at), ...argv.slice(at + 1)];
}

/**
 * `unknown command "serch"; did you mean \`evidex search\`? (run \`evidex
 * --help\`)`, for a command or a help topic (`before`: the words before it);
 * the command it offers is written as every printed command is
 * (command-line.ts), with `--repo` when the words after it (`rest`) name a
 * repository that is not the current folder's.
 */
async function unknownCommand(name: string, what: string, before: readonly string[], rest: readonly string[] = []): Promise<string> {
  const near = nearestCommand(name);
  // Loaded only for a mistyped command: the rest never print one from here.
  const { commandLine } = await import('./command-line.js');
  const offered = near === null ? '' : `; did you mean \`${commandLine(await placeNamed(rest), [...before, near])}\`?`;
  return `unknown ${what} ${JSON.stringify(name)}${offered} (run \`evidex --help\`)`;
}

/** Where a command line that names its repository with `--repo` (among `words`, before `--`) runs; undefined without one, or when it names no folder. */
async function placeNamed(words: readonly string[]): Promise<CommandPlace | undefined> {
  const end = words.indexOf('--');
  let repo: string | undefined;
  (end === -1 ? words : words.slice(0, end)).forEach((w, i, all) => {
    if (w === '--repo' && i + 1 < all.length) repo = all[i + 1];
    else if (w.startsWith('--repo=')) repo = w.slice('--repo='.length);
  });
  if (repo === undefined) return undefined;
  const { placeOf } = await import('./paths.js');
  // A --repo naming no folder is said by the command it is given to; the offer stays as it is.
  try { return await placeOf({ flags: { repo } }); } catch { return undefined; }
}

/** The words other command lines print their version for, said to be `evidex --version`. */
const VERSION_ASKED = new Set(['version', '-v', '-V']);

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = optionsAfterCommand(argv);
  // Before anything else is said, and on stderr only: stdout may be JSON a script reads.
  const unsupported = unsupportedNodeWarning();
  if (unsupported !== null) stderr().line(human`${name === 'mcp' ? 'evidex mcp' : 'evidex'}: ${unsupported}`);
  let cmd: Command | undefined;
  try {
    if (!name || name === '--help' || name === '-h' || name === 'help') {
      // `evidex help help` asks what the topics are: the list of commands, as `evidex help` prints it.
      const asked = name === 'help' && rest[0] !== 'help' ? rest[0] : undefined;
      const topic = asked !== undefined ? commandNamed(asked) : undefined;
      // A topic that is no command is mistyped, as `evidex serch` is: said so, with the nearest command.
      if (asked !== undefined && !topic) throw new UsageError(await unknownCommand(asked, 'help topic', ['help']));
      stdout().line(text(topic ? await commandHelp(await topic()) : await mainHelp()));
      // `evidex` alone is a usage error (exit 2) that shows the help.
      return name ? 0 : 2;
    }
    if (name === '--version') {
      stdout().line(line(version()));
      return 0;
    }
    const load = commandNamed(name);
    if (!load) {
      // How other tools are asked for their version: no command of evidex's, and no option without one.
      if (VERSION_ASKED.has(name)) {
        const { commandLine } = await import('./command-line.js');
        throw new UsageError(`unknown command ${JSON.stringify(name)}; \`${commandLine(undefined, ['--version'])}\` prints the version`);
      }
      // Options came first and no word names a command (optionsAfterCommand found none).
      if (name.startsWith('-')) throw new UsageError(`no command given (${JSON.stringify(name)} is an option): evidex COMMAND [ARGS] [OPTIONS]; run \`evidex --help\` for the commands`);
      throw new UsageError(await unknownCommand(name, 'command', [], rest));
    }
    cmd = await load();
    // A command whose usage names an argument (`evidex search QUERY`, `evidex diff [PATH]`) may be given one that starts with "-".
    const parsed = parseArgs(rest, cmd.flags, /^evidex \S+ \[?"?[A-Z]{2,}/.test(cmd.usage) ? `evidex ${name}` : undefined);
    if (parsed.flags.help) {
      stdout().line(text(await commandHelp(cmd)));
      return 0;
    }
    return await cmd.run(parsed);
  } catch (e) {
    return report(e, name ?? '', errorsAsJson(argv, cmd));
  }
}

/**
 * Whether an error of this command line is printed as JSON: always for
 * `call`; for a command that takes --json (or a command not known, or not
 * yet loaded: `cmd` undefined), when `--json` is among the options (before
 * `--`). The words themselves are looked at, so an error in reading them (an
 * unknown option, a bad value, an unknown command) is JSON too.
 */
export function errorsAsJson(argv: readonly string[], cmd?: Command): boolean {
  const words = optionsAfterCommand(argv);
  if (words[0] === 'call') return true;
  if (cmd !== undefined && !Object.hasOwn(cmd.flags, 'json')) return false;
  const end = words.indexOf('--');
  return (end === -1 ? words : words.slice(0, end)).some((a) => a === '--json' || a.startsWith('--json='));
}

/** An error as a script reads it (`evidex call`, and every command given --json): one JSON object on stdout (docs/cli.md, Errors). */
export function printJsonError(code: string, message: string): void {
  stdout().json({ error: { code, message } });
}

/**
 * Prints an error the one way (client/errors.ts, loaded only when something
 * failed): `{"error": ...}` on stdout for `call` and with --json (`json`),
 * one line on stderr otherwise, `evidex mcp:` for the MCP server (a host
 * shows its stderr as the server's log, where every other line starts so),
 * `evidex:` for the rest.
 */
async function report(e: unknown, command: string, json: boolean): Promise<number> {
  const { userError } = await import('./errors.js');
  const u = userError(e);
  const who = command === 'mcp' ? 'evidex mcp' : 'evidex';
  if (json) printJsonError(u.code, u.message);
  else stderr().line(u.plain ? human`${who}: ${u.message}` : human`${who}: ${u.code}: ${u.message}`);
  return u.exit;
}
