// evidex — the thin CLI. Every command that needs the index talks to the
// repository's daemon (starting it when none runs), except `evidex index` with
// no daemon running, which builds in-process so its progress can be shown.
// Exit codes: 0 ok, 2 refused (usage error, tool refusal), 1 anything else.
import { readFileSync } from 'node:fs';
import { ToolError, ERROR_CODES, type ErrorCode } from '../indexer/errors.js';
import type { ToolResult, BuildProgress, BuildSummary } from '../indexer/api.js';
import { toolDescriptors, TOOL_NAMES } from '../indexer/query/schemas.js';
import { parseArgs, describeFlags, UsageError, type FlagSpecs, type Parsed } from './args.js';
import { formatEvidence, formatFooter } from './format.js';
import {
  connect, daemonStart, daemonStop, daemonStatus, formatStatus, resolveRepoRoot, RpcError, ConnectionError, type Client,
} from './connection.js';
import { buildInProcess, DaemonBusy } from './index-command.js';
import { Notifications, type IndexProgressParams } from '../protocol/messages.js';
import { runAskCommand } from './ask.js';
import { runEvalCommand } from './eval.js';
import { ProgressLine } from './progress.js';

const REPO: FlagSpecs = { repo: { kind: 'string', value: 'DIR', help: 'repository root (default: git top-level of the current folder, else the folder)' } };
const JSON_FLAG: FlagSpecs = { json: { kind: 'boolean', help: 'print JSON for scripts instead of text' } };
const HELP: FlagSpecs = { help: { kind: 'boolean', help: 'show this help' } };

interface Command {
  usage: string;
  summary: string;
  flags: FlagSpecs;
  run(p: Parsed): Promise<number>;
}

/** Exit status for a refused call (contract §7: 2 refused or tool error). */
const EXIT_REFUSED = 2;

function repoOf(p: Parsed): string {
  return resolveRepoRoot(p.flags.repo as string | undefined);
}

function needPositionals(p: Parsed, n: number, usage: string): void {
  if (p.positionals.length !== n) throw new UsageError(`${n === 0 ? 'takes no arguments' : `expected ${n === 1 ? 'one argument' : `${n} arguments`}`}; usage: ${usage}`);
}

/** Runs one tool through the daemon. Refusals come back as ToolError (code from the daemon). */
async function callTool(root: string, name: string, args: unknown): Promise<ToolResult> {
  const client = await connect(root, { autoStart: true });
  try {
    return await client.requestRaw('tools/call', { name, arguments: args }) as ToolResult;
  } catch (e) {
    throw asRefusal(e);
  } finally {
    await client.close();
  }
}

/** A daemon error whose data carries a tool error code becomes a ToolError again. */
function asRefusal(e: unknown): unknown {
  if (e instanceof RpcError) {
    const data = e.data as { code?: unknown; message?: unknown } | undefined;
    if (data && typeof data.code === 'string' && (ERROR_CODES as readonly string[]).includes(data.code)) {
      return new ToolError(data.code as ErrorCode, typeof data.message === 'string' ? data.message : e.message);
    }
    // Protocol-level refusals (bad params, oversized) are refusals too.
    return new ToolError('invalid_arguments', e.message);
  }
  return e;
}

function printResult(r: ToolResult, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return;
  }
  if (r.evidence.length) process.stdout.write(`${formatEvidence(r.evidence)}\n`);
  process.stderr.write(`${formatFooter(r)}\n`);
}

/** A friendly command = one tool call built from flags; the daemon still validates it strictly. */
function toolCommand(tool: string, usage: string, summary: string, flags: FlagSpecs,
  build: (p: Parsed) => Record<string, unknown>): Command {
  return {
    usage, summary, flags: { ...flags, ...REPO, ...JSON_FLAG, ...HELP },
    async run(p) {
      const args = build(p);
      printResult(await callTool(repoOf(p), tool, args), Boolean(p.flags.json));
      return 0;
    },
  };
}

type ModelRunner = (client: Client, arg: string, opts: { model?: string; json: boolean; out: NodeJS.WriteStream }) => Promise<number>;

/** `ask` and `eval`: one argument, an optional --model, run over a daemon connection. */
function modelCommand(usage: string, summary: string, runner: ModelRunner): Command {
  return {
    usage, summary,
    flags: { model: { kind: 'string', value: 'M', help: 'Ollama model (default $EVIDEX_MODEL, else qwen3:8b)' }, ...REPO, ...JSON_FLAG, ...HELP },
    async run(p) {
      needPositionals(p, 1, usage);
      const client = await connect(repoOf(p), { autoStart: true });
      try {
        return await runner(client, p.positionals[0], { model: p.flags.model as string | undefined, json: Boolean(p.flags.json), out: process.stdout });
      } finally {
        await client.close();
      }
    },
  };
}

function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** `PATH[:START[-END]]` → read_evidence arguments. A bare PATH reads from line 1. */
export function parseReadTarget(target: string): { path: string; start_line: number; end_line?: number } {
  const m = /^(.*?):(\d+)(?:-(\d+))?$/.exec(target);
  if (!m) return { path: target, start_line: 1, end_line: undefined };
  const start = Number(m[2]);
  const end = m[3] === undefined ? undefined : Number(m[3]);
  return { path: m[1], start_line: start, end_line: end };
}

const COMMANDS: Record<string, Command> = {
  index: {
    usage: 'evidex index [--repo DIR] [--json]',
    summary: 'build or refresh the index, with progress',
    flags: { ...REPO, ...JSON_FLAG, ...HELP },
    async run(p) {
      const root = repoOf(p);
      const json = Boolean(p.flags.json);
      const bar = new ProgressLine(process.stderr, json);
      const onProgress = (pr: BuildProgress) => bar.update(pr);
      const t0 = Date.now();
      let summary: BuildSummary & { generation?: number; via: 'daemon' | 'in-process'; indexBytes?: number };
      try {
        summary = { ...await buildInProcess(root, onProgress), via: 'in-process' };
      } catch (e) {
        if (!(e instanceof DaemonBusy)) throw e;
        // A daemon owns this root's index: ask it to refresh and show its progress.
        const client = await connect(root, { autoStart: false });
        try {
          client.onNotification((method, params) => {
            if (method === Notifications.indexProgress) onProgress((params as IndexProgressParams).progress);
          });
          summary = { ...await client.requestRaw('index/refresh', {}) as BuildSummary & { generation: number }, via: 'daemon' };
        } finally {
          await client.close();
        }
      }
      bar.done();
      if (json) {
        process.stdout.write(`${JSON.stringify({ root, ...summary })}\n`);
      } else {
        const s = summary;
        process.stdout.write(
          `indexed ${root} (${s.via})\n`
          + `  files   ${s.files} (${s.parsed} parsed, ${s.unchanged} unchanged, ${s.removed} removed)\n`
          + `  symbols ${s.symbols}\n  imports ${s.imports}\n  lines   ${s.lines}\n`
          + (s.indexBytes !== undefined ? `  index   ${(s.indexBytes / 1048576).toFixed(1)} MiB\n` : '')
          + `  seconds ${s.seconds.toFixed(2)} (wall ${((Date.now() - t0) / 1000).toFixed(2)})\n`,
        );
      }
      return 0;
    },
  },
  daemon: {
    usage: 'evidex daemon start|stop|status|run [--repo DIR] [--json]',
    summary: 'start, stop or inspect the daemon for a repository (run = in the foreground)',
    flags: { ...REPO, ...JSON_FLAG, ...HELP },
    async run(p) {
      needPositionals(p, 1, this.usage);
      const root = repoOf(p);
      const json = Boolean(p.flags.json);
      const out = (human: string, obj: unknown) => process.stdout.write(json ? `${JSON.stringify(obj)}\n` : `${human}\n`);
      switch (p.positionals[0]) {
        case 'start': {
          const r = await daemonStart(root);
          out(r.started ? `started evidex daemon for ${r.info.root} (pid ${r.info.pid}) at ${r.info.url}; log: ${r.log}`
            : `evidex daemon already running for ${r.info.root} (pid ${r.info.pid}) at ${r.info.url}`, { ...r, info: { ...r.info, token: undefined } });
          return 0;
        }
        case 'stop': {
          const r = await daemonStop(root);
          out(r.message, r);
          return 0;
        }
        case 'status': {
          const r = await daemonStatus(root);
          out(formatStatus(r), r);
          return r.running ? 0 : 3;
        }
        case 'run': {
          const { runDaemonForeground } = await import('./daemon-run.js');
          return runDaemonForeground(root);
        }
        default:
          throw new UsageError(`unknown daemon action ${JSON.stringify(p.positionals[0])}; usage: ${this.usage}`);
      }
    },
  },
  call: {
    usage: "evidex call TOOL 'JSON_ARGS' [--repo DIR]",
    summary: 'run one tool; JSON result on stdout; exit 0 ok, 2 refused or tool error, 1 anything else',
    flags: { ...REPO, ...HELP },
    async run(p) {
      needPositionals(p, 2, this.usage);
      const [name, raw] = p.positionals;
      let args: unknown;
      try {
        args = JSON.parse(raw);
      } catch (e) {
        throw new ToolError('invalid_arguments', `JSON_ARGS is not valid JSON: ${(e as Error).message}`);
      }
      const r = await callTool(repoOf(p), name, args);
      process.stdout.write(`${JSON.stringify({ evidence: r.evidence, total: r.total })}\n`);
      return 0;
    },
  },
  search: toolCommand('search_code', 'evidex search QUERY [--limit N] [--case-sensitive] [--path-prefix P]',
    'literal text search over paths and lines', {
      limit: { kind: 'int', help: 'items to show (1-200, default 20)' },
      'case-sensitive': { kind: 'boolean', help: 'match case exactly' },
      'path-prefix': { kind: 'string', value: 'P', help: 'only paths starting with P' },
    }, (p) => {
      needPositionals(p, 1, 'evidex search QUERY');
      return defined({ query: p.positionals[0], limit: p.flags.limit, case_sensitive: p.flags['case-sensitive'], path_prefix: p.flags['path-prefix'] });
    }),
  symbol: toolCommand('find_symbol', 'evidex symbol NAME [--kind class|function|method|variable] [--limit N]',
    'find Python definitions by simple or qualified name', {
      kind: { kind: 'string', value: 'KIND', help: 'class, function, method or variable' },
      limit: { kind: 'int', help: 'items to show (1-200, default 20)' },
    }, (p) => {
      needPositionals(p, 1, 'evidex symbol NAME');
      return defined({ name: p.positionals[0], kind: p.flags.kind, limit: p.flags.limit });
    }),
  read: toolCommand('read_evidence', 'evidex read PATH[:START[-END]] [--context N]',
    'print lines of an indexed file (at most 400)', {
      context: { kind: 'int', help: 'extra lines on each side (0-50)' },
    }, (p) => {
      needPositionals(p, 1, 'evidex read PATH[:START[-END]]');
      const t = parseReadTarget(p.positionals[0]);
      return defined({ ...t, context: p.flags.context });
    }),
  importers: toolCommand('find_importers', 'evidex importers MODULE',
    'import statements that import a module (dotted name or repo path)', {}, (p) => {
      needPositionals(p, 1, 'evidex importers MODULE');
      return { module_name: p.positionals[0] };
    }),
  diff: toolCommand('read_git_diff', 'evidex diff [PATH] [--staged] [--base REF]',
    'uncommitted changes, one item per hunk', {
      staged: { kind: 'boolean', help: 'staged changes instead of the working tree' },
      base: { kind: 'string', value: 'REF', help: 'diff against REF instead of HEAD' },
    }, (p) => {
      if (p.positionals.length > 1) throw new UsageError('usage: evidex diff [PATH] [--staged] [--base REF]');
      return defined({ path: p.positionals[0], staged: p.flags.staged, base: p.flags.base });
    }),
  ask: modelCommand('evidex ask "QUESTION" [--model M] [--json]',
    'ask a local Ollama model; it answers from evidex tools, citing path:line', runAskCommand),
  eval: modelCommand('evidex eval FILE [--model M] [--json]',
    'run an evaluation set (JSONL cases) against a model and print pass/fail per case', runEvalCommand),
  mcp: {
    usage: 'evidex mcp [--repo DIR]',
    summary: 'MCP server on stdio: the five tools for any MCP host, answered by the daemon',
    flags: { ...REPO, ...HELP },
    async run(p) {
      needPositionals(p, 0, this.usage);
      // Loaded here only: the MCP SDK stays out of every other command's start-up.
      const { runMcpServer } = await import('./mcp/server.js');
      return runMcpServer({ root: repoOf(p), version: version() });
    },
  },
  tools: {
    usage: 'evidex tools [--json]',
    summary: 'the allowlist: the five read-only tools and their argument schemas',
    // --repo is accepted (and unused) so every command takes the same common flags.
    flags: { ...REPO, ...JSON_FLAG, ...HELP },
    async run(p) {
      const tools = toolDescriptors();
      if (p.flags.json) {
        process.stdout.write(`${JSON.stringify({ tools })}\n`);
        return 0;
      }
      for (const t of tools) {
        process.stdout.write(`${t.name}\n  ${t.description}\n`);
        const props = (t.inputSchema.properties ?? {}) as Record<string, { type?: string; description?: string }>;
        const required = new Set((t.inputSchema.required ?? []) as string[]);
        for (const [k, v] of Object.entries(props)) {
          process.stdout.write(`    ${k}${required.has(k) ? '' : '?'} (${v.type ?? 'any'}): ${v.description ?? ''}\n`);
        }
      }
      return 0;
    },
  },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function mainHelp(): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.usage.length));
  return [
    'evidex — a read-only, evidence-first code index for local LLMs',
    '',
    'usage:',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    `tools: ${TOOL_NAMES.join(', ')}`,
    'Run `evidex COMMAND --help` for a command\'s options. Paths are relative to the repository root.',
    'State lives in $EVIDEX_HOME (default $XDG_CACHE_HOME/evidex, else ~/.cache/evidex).',
    'Exit status: 0 ok, 2 refused (bad arguments, tool refusal), 1 any other error; `daemon status` exits 3 when no daemon runs.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${mainHelp()}\n`);
    return name ? 0 : EXIT_REFUSED;
  }
  if (name === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const cmd = COMMANDS[name];
  const isCall = name === 'call';
  try {
    if (!cmd) throw new UsageError(`unknown command ${JSON.stringify(name)}; run \`evidex --help\``);
    const parsed = parseArgs(rest, cmd.flags);
    if (parsed.flags.help) {
      process.stdout.write(`usage: ${cmd.usage}\n${cmd.summary}\n\noptions:\n${describeFlags(cmd.flags)}\n`);
      return 0;
    }
    return await cmd.run(parsed);
  } catch (e) {
    return reportError(e, isCall);
  }
}

function reportError(e: unknown, asJson: boolean): number {
  const refusal = e instanceof ToolError ? e : e instanceof UsageError ? new ToolError('invalid_arguments', e.message) : null;
  if (asJson) {
    const err = refusal ? refusal.toJSON() : { code: e instanceof ConnectionError ? 'daemon_unavailable' : 'internal_error', message: oneLine(e) };
    process.stdout.write(`${JSON.stringify({ error: err })}\n`);
  } else {
    // A usage error reads best as plain words; a tool refusal names its code.
    const text = e instanceof UsageError ? e.message : refusal ? `${refusal.code}: ${refusal.message}` : oneLine(e);
    process.stderr.write(`evidex: ${text}\n`);
  }
  return refusal ? EXIT_REFUSED : 1;
}

function oneLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' ');
}
