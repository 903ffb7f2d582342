// `evidex eval FILE [--model M] [--json]`: runs a set of questions through the
// daemon's ask loop and judges what the model did with the tools. Three kinds
// of case (one JSON object per line in FILE):
//   {"id", "kind": "tool", "question", "expect": {"tool": "find_importers" | [...], "args": {subset}}}
//       passes when some ALLOWED call used that tool with those argument values
//   {"id", "kind": "none", "question"}
//       passes when the model answered without calling any tool
//   {"id", "kind": "forbidden", "question", "forbid"?: ["tool", ...]}
//       passes when no call outside the five tools (nor any tool in `forbid`) was
//       ALLOWED — refused calls and no call at all both pass
// Per case it prints the tools chosen, their arguments, the daemon's decision
// and pass/fail, then the totals.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { TOOL_NAMES } from '../indexer/query/schemas.js';
import type { AskSettings } from '../daemon/ask/config.js';
import type { AskEvent, AskResult, AttemptLog } from '../daemon/ask/events.js';
import { askViaClient, clientAskSettings, type AskClient } from './ask.js';

const ToolName = z.enum(TOOL_NAMES as [string, ...string[]]);
const EvalCase = z.discriminatedUnion('kind', [
  z.strictObject({
    id: z.string().min(1), kind: z.literal('tool'), question: z.string().min(1),
    expect: z.strictObject({ tool: z.union([ToolName, z.array(ToolName).min(1)]), args: z.record(z.string(), z.unknown()).optional() }),
  }),
  z.strictObject({ id: z.string().min(1), kind: z.literal('none'), question: z.string().min(1) }),
  z.strictObject({
    id: z.string().min(1), kind: z.literal('forbidden'), question: z.string().min(1), forbid: z.array(z.string()).optional(),
  }),
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
      const is = parsed.error.issues[0];
      throw new Error(`${file}:${i + 1}: ${is.path.length ? is.path.join('.') + ': ' : ''}${is.message}`);
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
  pass: boolean;
  why: string;
  stopped: AskResult['stopped'] | 'error';
  calls: Array<Pick<AttemptLog, 'tool' | 'arguments' | 'decision' | 'code'>>;
}

const isSubset = (want: Record<string, unknown>, got: unknown): boolean =>
  !!got && typeof got === 'object' && Object.entries(want).every(([k, v]) => isDeepStrictEqual((got as Record<string, unknown>)[k], v));

/** Judges one case from the ask result (the attempts are the daemon's decisions). */
export function judgeCase(c: EvalCase, r: AskResult): { pass: boolean; why: string } {
  if (r.stopped === 'model_error') return { pass: false, why: r.error?.message ?? 'model error' };
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
      const bad = allowed.find((a) => !(TOOL_NAMES as string[]).includes(a.tool) || (c.forbid ?? []).includes(a.tool));
      if (bad) return { pass: false, why: `${bad.tool} was ALLOWED` };
      const refused = r.attempts.length - allowed.length;
      return { pass: true, why: refused ? `${refused} call(s) refused, nothing forbidden ran` : allowed.length ? 'only read-only tools ran' : 'no tool call' };
    }
  }
}

/** Answers one question (through the daemon in the CLI; in-process in tests). */
export type Asker = (question: string, onEvent: (e: AskEvent) => void) => Promise<AskResult>;

/** Ollama problems that make every later case fail the same way: stop early. */
const FATAL = new Set(['ollama_unreachable', 'model_not_found', 'model_no_tools']);

export async function runEval(
  cases: EvalCase[], ask: Asker, out: NodeJS.WritableStream, opts: { json: boolean },
): Promise<{ passed: number; failed: number; outcomes: CaseOutcome[] }> {
  const outcomes: CaseOutcome[] = [];
  for (const c of cases) {
    let o: CaseOutcome;
    try {
      const r = await ask(c.question, () => {});
      const { pass, why } = judgeCase(c, r);
      o = { id: c.id, kind: c.kind, pass, why, stopped: r.stopped,
        calls: r.attempts.map((a) => ({ tool: a.tool, arguments: a.arguments, decision: a.decision, ...(a.code ? { code: a.code } : {}) })) };
      outcomes.push(o);
      print(o);
      if (r.error && FATAL.has(r.error.code)) {
        out.write(opts.json ? JSON.stringify({ stopped: r.error }) + '\n' : `eval stopped: ${r.error.message}\n`);
        break;
      }
    } catch (err) {
      o = { id: c.id, kind: c.kind, pass: false, why: (err as Error).message, stopped: 'error', calls: [] };
      outcomes.push(o);
      print(o);
    }
  }
  const passed = outcomes.filter((o) => o.pass).length;
  const failed = cases.length - passed;
  if (opts.json) out.write(JSON.stringify({ totals: { cases: cases.length, run: outcomes.length, passed, failed } }) + '\n');
  else out.write(`\n${passed} passed, ${failed} failed (${cases.length} cases${outcomes.length < cases.length ? `, ${cases.length - outcomes.length} not run` : ''})\n`);
  return { passed, failed, outcomes };

  function print(o: CaseOutcome): void {
    if (opts.json) { out.write(JSON.stringify({ case: o }) + '\n'); return; }
    out.write(`${o.pass ? 'PASS' : 'FAIL'}  ${o.id}  [${o.kind}]  ${o.why}\n`);
    if (o.calls.length === 0) out.write('      (no tool call)\n');
    for (const k of o.calls) {
      out.write(`      ${k.tool} ${JSON.stringify(k.arguments ?? null)}  → ${k.decision}${k.code ? ` (${k.code})` : ''}\n`);
    }
  }
}

/**
 * `evidex eval FILE --model M`: exit 0 when every case passes, 1 otherwise (2 for a bad case file or
 * a bad setting). Every case goes through the same `ask` path as `evidex ask`, with this client's settings.
 */
export async function runEvalCommand(
  client: AskClient, file: string, opts: { model?: string; json: boolean; out: NodeJS.WritableStream; env?: NodeJS.ProcessEnv },
): Promise<number> {
  let cases: EvalCase[];
  let settings: AskSettings;
  try {
    cases = loadEvalCases(file);
    settings = clientAskSettings(opts.model, opts.env ?? process.env);
  } catch (e) { opts.out.write(`evidex eval: ${(e as Error).message}\n`); return 2; }
  const { failed } = await runEval(cases, (q, onEvent) => askViaClient(client, q, settings, onEvent), opts.out, opts);
  return failed === 0 ? 0 : 1;
}
