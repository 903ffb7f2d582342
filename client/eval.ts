// `evidex eval FILE [--model M] [--repeat N] [--json]`: runs a set of questions
// through the daemon's ask loop and judges what the model did with the tools
// and what the daemon allowed. Three kinds of case (one JSON object per line):
//   {"id", "kind": "tool", "question", "expect": {"tool": "find_importers" | [...], "args": {subset}}}
//       passes when some ALLOWED call used that tool with those argument values
//   {"id", "kind": "none", "question"}
//       passes when the model answered without calling any tool
//   {"id", "kind": "forbidden", "question", "forbid": {"tools"?: [...], "paths"?: [...], "code"?: "secret_denied"}}
//       names what must not be allowed: it fails when the daemon ALLOWED a call
//       outside the allowlist or to a forbidden tool, or a call whose `path` /
//       `path_prefix` is (or normalises to) a forbidden path; with `code`, a
//       call on a forbidden path must also have been refused with that code.
// Every kind fails on a time-out or an Ollama error: a case that did not run
// to its end proves nothing. Progress is printed per step as it happens (on
// `err`); the report (on `out`) gives each case's calls, decisions and
// timings, the Ollama version and model digest, and with --repeat N each
// case's pass rate over N runs.
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { TOOL_NAMES } from '../indexer/query/schemas.js';
import { issueWords } from '../indexer/query/issue-words.js';
import { human, screenOf, type Screen } from '../local/human.js';
import type { AskSettings } from '../protocol/ask-settings.js';
import type { ModelApi } from '../protocol/messages.js';
import type { AskEvent, AskResult, AttemptLog } from '../protocol/ask-events.js';
import { askViaClient, clientAskSettings, collapseNotRun, type AskClient } from './ask.js';

const ToolName = z.enum(TOOL_NAMES as [string, ...string[]]);
const Forbid = z.strictObject({
  tools: z.array(z.string().min(1)).min(1).optional(),
  paths: z.array(z.string().min(1)).min(1).optional(),
  code: z.string().min(1).optional(),
}).refine((f) => f.tools || f.paths, { message: 'name what must not be allowed: tools and/or paths' })
  .refine((f) => !f.code || f.paths, { message: 'code is the refusal expected for the forbidden paths: give paths too' });
const EvalCase = z.discriminatedUnion('kind', [
  z.strictObject({
    id: z.string().min(1), kind: z.literal('tool'), question: z.string().min(1),
    expect: z.strictObject({ tool: z.union([ToolName, z.array(ToolName).min(1)]), args: z.record(z.string(), z.unknown()).optional() }),
  }),
  z.strictObject({ id: z.string().min(1), kind: z.literal('none'), question: z.string().min(1) }),
  z.strictObject({ id: z.string().min(1), kind: z.literal('forbidden'), question: z.string().min(1), forbid: Forbid }),
]);
export type EvalCase = z.infer<typeof EvalCase>;

/** Reads a JSONL case file; a bad line is a one-line error naming FILE:LINE. Blank lines and `//` comments are skipped. */
export function loadEvalCases(file: string): EvalCase[] {
  let text: string;
  try { text = readFileSync(file, 'utf8'); } catch (e) { throw new Error(`cannot read eval file ${file}: ${(e as Error).message}`); }
  const cases: EvalCase[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('//')) return;
    let json: unknown;
    try { json = JSON.parse(line); } catch { throw new Error(`${file}:${i + 1}: not valid JSON`); }
    const parsed = EvalCase.safeParse(json);
    if (!parsed.success) {
      throw new Error(`${file}:${i + 1}: ${issueWords(parsed.error.issues[0], json, 'the case')}`);
    }
    if (ids.has(parsed.data.id)) throw new Error(`${file}:${i + 1}: duplicate id ${JSON.stringify(parsed.data.id)}`);
    ids.add(parsed.data.id);
    cases.push(parsed.data);
  });
  if (cases.length === 0) throw new Error(`${file}: no cases`);
  return cases;
}

export interface CaseOutcome {
  id: string;
  kind: EvalCase['kind'];
  run: number;                      // 1..repeat
  pass: boolean;
  why: string;
  stopped: AskResult['stopped'] | 'error';
  ms: number;                       // the whole case
  steps: Array<{ step: number; ms: number }>; // each model turn
  calls: Array<Pick<AttemptLog, 'step' | 'tool' | 'arguments' | 'decision' | 'code' | 'ms'>>;
}

const isSubset = (want: Record<string, unknown>, got: unknown): boolean =>
  !!got && typeof got === 'object' && Object.entries(want).every(([k, v]) => isDeepStrictEqual((got as Record<string, unknown>)[k], v));

/** The repository paths a call's arguments name (`path`, `path_prefix`), normalised as the daemon would resolve them. */
function pathsOf(args: unknown): string[] {
  if (!args || typeof args !== 'object') return [];
  const out: string[] = [];
  for (const k of ['path', 'path_prefix']) {
    const v = (args as Record<string, unknown>)[k];
    if (typeof v === 'string') out.push(posix.normalize(v).replace(/^\.\/|\/$/g, ''));
  }
  return out;
}

const touches = (forbidden: readonly string[], args: unknown): string | undefined => {
  const want = forbidden.map((p) => posix.normalize(p).replace(/^\.\/|\/$/g, ''));
  return pathsOf(args).find((p) => want.includes(p));
};

/** Judges one run of a case from the ask result (the attempts are the daemon's decisions). */
export function judgeCase(c: EvalCase, r: AskResult): { pass: boolean; why: string } {
  if (r.stopped === 'model_error') return { pass: false, why: r.error?.message ?? 'model error' };
  if (r.stopped === 'time_limit') return { pass: false, why: `timed out: ${r.message ?? 'wall-clock limit'}` };
  if (r.stopped === 'cancelled') return { pass: false, why: 'cancelled' };
  const allowed = r.attempts.filter((a) => a.decision === 'allowed');
  switch (c.kind) {
    case 'tool': {
      const tools = Array.isArray(c.expect.tool) ? c.expect.tool : [c.expect.tool];
      const hit = allowed.find((a) => tools.includes(a.tool) && (!c.expect.args || isSubset(c.expect.args, a.arguments)));
      if (hit) return { pass: true, why: `called ${hit.tool} as expected` };
      if (allowed.some((a) => tools.includes(a.tool))) return { pass: false, why: `called ${tools.join('|')} but not with ${JSON.stringify(c.expect.args)}` };
      return { pass: false, why: r.attempts.length ? `no allowed ${tools.join('|')} call` : 'no tool call' };
    }
    case 'none':
      if (r.attempts.length) return { pass: false, why: `expected no tool call, got ${r.attempts.length}` };
      return r.stopped === 'answered' ? { pass: true, why: 'answered without tools' } : { pass: false, why: `stopped: ${r.stopped}` };
    case 'forbidden': {
      const f = c.forbid;
      for (const a of allowed) {
        if (!(TOOL_NAMES as string[]).includes(a.tool)) return { pass: false, why: `${a.tool} is not on the allowlist but was ALLOWED` };
        if (f.tools?.includes(a.tool)) return { pass: false, why: `${a.tool} was ALLOWED` };
        const p = f.paths && touches(f.paths, a.arguments);
        if (p !== undefined) return { pass: false, why: `${a.tool} on ${p} was ALLOWED` };
      }
      if (f.code && f.paths) {
        const wrong = r.attempts.find((a) => touches(f.paths!, a.arguments) !== undefined && a.code !== f.code);
        if (wrong) return { pass: false, why: `${wrong.tool} on ${touches(f.paths, wrong.arguments)} was refused with ${wrong.code ?? 'no code'}, expected ${f.code}` };
      }
      const refused = r.attempts.filter((a) => a.decision === 'refused').length;
      return { pass: true, why: refused ? `${refused} call(s) refused, nothing forbidden ran` : allowed.length ? 'only permitted calls ran' : 'no tool call' };
    }
  }
}

/** Answers one question (through the daemon in the CLI; in-process in tests). `describe` asks for the Ollama version and model digest. */
export type Asker = (question: string, onEvent: (e: AskEvent) => void, describe: boolean) => Promise<AskResult>;

/** Server problems that make every later case fail the same way: stop early. */
const FATAL = new Set(['ollama_unreachable', 'api_unreachable', 'model_not_found', 'model_no_tools']);

export interface EvalReport {
  passed: number;
  failed: number;
  outcomes: CaseOutcome[];
  /** Per case: runs passed of runs made. */
  rates: Array<{ id: string; passed: number; runs: number }>;
  ollama?: { version?: string; digest?: string; model?: string; numCtx?: number; api?: ModelApi };
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export async function runEval(
  cases: EvalCase[], ask: Asker, to: Screen | NodeJS.WritableStream,
  opts: { json: boolean; repeat?: number; progress?: Screen | NodeJS.WritableStream },
): Promise<EvalReport> {
  const repeat = Math.max(1, opts.repeat ?? 1);
  // Questions, arguments and reasons are outside text: everything is shown by local/human.ts's rule.
  const out = screenOf(to);
  const progress = opts.progress && screenOf(opts.progress);
  const outcomes: CaseOutcome[] = [];
  let ollama: EvalReport['ollama'];
  let stoppedEarly = false;
  let server = 'Ollama';
  const total = cases.length * repeat;
  let n = 0;
  outer:
  for (let run = 1; run <= repeat; run++) {
    for (const c of cases) {
      n++;
      const label = `[${n}/${total}] ${c.id}${repeat > 1 ? ` (run ${run})` : ''}`;
      progress?.line(human`${label}: ${c.question}`);
      const t0 = Date.now();
      const onEvent = (e: AskEvent): void => {
        if (!progress) return;
        if (e.type === 'step') progress.line(human`  step ${e.step}/${e.maxSteps} (${secs(Date.now() - t0)})`);
        if (e.type === 'tool_call') progress.line(human`    ${e.name} ${JSON.stringify(e.arguments ?? null).slice(0, 160)} → ${e.decision}${e.code ? human` (${e.code})` : ''}`);
        if (e.type === 'calls_not_run') progress.line(human`    ${e.asked - e.cap} more call(s) not run (at most ${e.cap} per turn)`);
        if (e.type === 'started') server = e.api === 'openai' ? 'the server' : 'Ollama';
        if (e.type === 'context_cut') progress.line(human`    ${server} cut the prompt (${e.promptEvalCount} of ${e.numCtx} tokens)`);
      };
      let o: CaseOutcome;
      try {
        const r = await ask(c.question, onEvent, ollama === undefined);
        if (ollama === undefined) ollama = { ...r.ollama, model: r.model, ...(r.numCtx ? { numCtx: r.numCtx } : {}), ...(r.api ? { api: r.api } : {}) };
        const { pass, why } = judgeCase(c, r);
        o = {
          id: c.id, kind: c.kind, run, pass, why, stopped: r.stopped, ms: Date.now() - t0,
          steps: (r.turns ?? []).map((t) => ({ step: t.step, ms: t.ms })),
          calls: r.attempts.map((a) => ({ step: a.step, tool: a.tool, arguments: a.arguments, decision: a.decision, ms: a.ms, ...(a.code ? { code: a.code } : {}) })),
        };
        outcomes.push(o);
        progress?.line(human`  ${o.pass ? 'PASS' : 'FAIL'} in ${secs(o.ms)}`);
        print(o);
        if (r.error && FATAL.has(r.error.code)) {
          if (opts.json) out.json({ stopped: r.error });
          else out.line(human`eval stopped: ${r.error.message}`);
          stoppedEarly = true;
          break outer;
        }
      } catch (err) {
        o = { id: c.id, kind: c.kind, run, pass: false, why: (err as Error).message, stopped: 'error', ms: Date.now() - t0, steps: [], calls: [] };
        outcomes.push(o);
        print(o);
      }
    }
  }
  const rates = cases.map((c) => {
    const mine = outcomes.filter((o) => o.id === c.id);
    return { id: c.id, passed: mine.filter((o) => o.pass).length, runs: mine.length };
  });
  const passed = outcomes.filter((o) => o.pass).length;
  const failed = total - passed;
  const notRun = total - outcomes.length;
  if (opts.json) {
    out.json({ totals: { cases: cases.length, repeat, runs: total, run: outcomes.length, passed, failed }, rates, ollama: ollama ?? null });
  } else {
    if (ollama) {
      out.line(ollama.api === 'openai'
        ? human`\nOpenAI-compatible server ${ollama.version ?? '(version unknown)'} · model ${ollama.model} · window ${ollama.numCtx ?? 'unknown'}`
        : human`\nOllama ${ollama.version ?? '(version unknown)'} · model ${ollama.model}${ollama.digest ? human` ${ollama.digest}` : ''}${ollama.numCtx ? human` · num_ctx ${ollama.numCtx}` : ''}`);
    }
    if (repeat > 1) {
      out.line(human`pass rates:`);
      for (const r of rates) out.line(human`  ${r.id}  ${r.passed}/${r.runs}${r.runs < repeat ? human` (${repeat - r.runs} not run)` : ''}`);
    }
    out.line(human`\n${passed} passed, ${failed} failed (${cases.length} cases${repeat > 1 ? human` × ${repeat} runs` : ''}${notRun ? human`, ${notRun} not run` : ''})`);
  }
  if (stoppedEarly && opts.json) { /* the `stopped` line above already says why */ }
  return { passed, failed, outcomes, rates, ...(ollama ? { ollama } : {}) };

  function print(o: CaseOutcome): void {
    if (opts.json) { out.json({ case: o }); return; }
    const steps = o.steps.length ? `; model turns ${o.steps.map((s) => secs(s.ms)).join(', ')}` : '';
    out.line(human`${o.pass ? 'PASS' : 'FAIL'}  ${o.id}  [${o.kind}]  ${o.why}  (${secs(o.ms)}${steps})`);
    if (o.calls.length === 0) out.line(human`      (no tool call)`);
    for (const k of collapseNotRun(o.calls)) {
      if ('notRun' in k) out.line(human`      ${k.notRun} more call(s) → not_run (calls_per_turn)`);
      else out.line(human`      ${k.tool} ${JSON.stringify(k.arguments ?? null)}  → ${k.decision}${k.code ? human` (${k.code})` : ''}  ${k.ms} ms`);
    }
  }
}

/**
 * `evidex eval FILE --model M`: exit 0 when every run of every case passes, 1 otherwise (2 for a bad case file or
 * a bad setting). Every case goes through the same `ask` path as `evidex ask`, with this client's settings.
 */
export async function runEvalCommand(
  client: AskClient, file: string,
  opts: { model?: string; api?: ModelApi; json: boolean; out: Screen | NodeJS.WritableStream; err?: Screen | NodeJS.WritableStream; env?: NodeJS.ProcessEnv; repeat?: number },
): Promise<number> {
  let cases: EvalCase[];
  let settings: AskSettings;
  try {
    cases = loadEvalCases(file);
    settings = clientAskSettings(opts, opts.env ?? process.env, (line) => { if (opts.err || !opts.json) screenOf(opts.err ?? opts.out).line(human`evidex eval: ${line}`); });
    if (opts.repeat !== undefined && !(opts.repeat >= 1 && opts.repeat <= 100)) throw new Error(`--repeat ${opts.repeat}: give 1 to 100 runs`);
  } catch (e) {
    // With --json, the shape every command's --json error has (docs/cli.md, Errors): a bad case file or setting is the caller's input.
    if (opts.json) screenOf(opts.out).json({ error: { code: 'invalid_arguments', message: (e as Error).message } });
    else screenOf(opts.err ?? opts.out).line(human`evidex eval: ${(e as Error).message}`);
    return 2;
  }
  const { failed } = await runEval(cases, (q, onEvent, describe) => askViaClient(client, q, settings, onEvent, undefined, { describe_model: describe }),
    opts.out, { json: opts.json, ...(opts.repeat ? { repeat: opts.repeat } : {}), ...(opts.err ? { progress: opts.err } : {}) });
  return failed === 0 ? 0 : 1;
}
