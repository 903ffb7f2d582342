// The audit trail (contract §6): one JSON line per tool call the model asked
// for, allowed or refused, appended to <stateDir>/audit.log. Each line is
// written with a single append (O_APPEND, one write), so lines from
// concurrent questions never interleave.
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface AuditRecord {
  time: string;            // ISO 8601
  client: string;
  question: string;        // question id
  model: string;
  step: number;
  tool: string;
  arguments: unknown;
  decision: 'allowed' | 'refused';
  code?: string;
  reason?: string;
  items?: number;
  total?: number;
  ms: number;
}

/** Arguments come from a model and can be anything; a huge value is cut so one line stays one reasonable line. */
const MAX_ARG_CHARS = 4000;

export function auditPath(stateDir: string): string {
  return join(stateDir, 'audit.log');
}

export async function appendAudit(stateDir: string, rec: AuditRecord): Promise<void> {
  let args: unknown = rec.arguments;
  const text = JSON.stringify(args) ?? 'null';
  if (text.length > MAX_ARG_CHARS) args = { truncated_json: text.slice(0, MAX_ARG_CHARS) };
  const line = JSON.stringify({ ...rec, arguments: args === undefined ? null : args }) + '\n';
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  await appendFile(auditPath(stateDir), line, { encoding: 'utf8', mode: 0o600, flag: 'a' });
}
