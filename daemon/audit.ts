// The audit trail (docs/ask.md): one JSON line per tool call, from the ask
// loop's model and from any client's tools/call (the CLI, an MCP host), allowed
// or refused, appended to <stateDir>/audit.log. Lines are queued and written in
// order by one append at a time, so lines never interleave and a tools/call is
// answered without waiting for the disk.
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface AuditRecord {
  time: string;             // ISO 8601, when the decision was made
  client: string;           // the name the client gave (X-Evidex-Client), else "unknown"
  question: string | null;  // the question's text for an ask; null for a direct tools/call
  question_id?: string;
  model?: string;
  step?: number;
  tool: string;
  arguments: unknown;
  decision: 'allowed' | 'refused' | 'not_run' | 'cancelled'; // cancelled: a tools/call whose client gave up (cancelled or left) before it was answered
  code?: string;
  reason?: string;
  items?: number;
  total?: number;
  duration_ms: number;
}

/** Model and client input can be anything; a huge value is cut so one line stays one reasonable line. */
const MAX_ARG_CHARS = 4000;
const MAX_QUESTION_CHARS = 2000;

export function auditPath(stateDir: string): string {
  return join(stateDir, 'audit.log');
}

function line(rec: AuditRecord): string {
  let args: unknown = rec.arguments;
  let text: string;
  try { text = JSON.stringify(args) ?? 'null'; } catch { text = String(args); args = { unserialisable: true }; }
  if (text.length > MAX_ARG_CHARS) args = { truncated_json: text.slice(0, MAX_ARG_CHARS) };
  const question = rec.question !== null && rec.question.length > MAX_QUESTION_CHARS
    ? `${rec.question.slice(0, MAX_QUESTION_CHARS)}…` : rec.question;
  return JSON.stringify({ ...rec, question, arguments: args === undefined ? null : args }) + '\n';
}

export class AuditLog {
  private pending: string[] = [];
  private waiters: Array<() => void> = [];
  private writing: Promise<void> | null = null;

  constructor(readonly path: string, private readonly onError: (e: Error) => void = () => undefined) {}

  /** Queues one record; the promise resolves once it is on disk (callers that answer first need not wait). */
  write(rec: AuditRecord): Promise<void> {
    this.pending.push(line(rec));
    const done = new Promise<void>((r) => this.waiters.push(r));
    this.writing ??= this.drain();
    return done;
  }

  /** Resolves when everything queued so far is written. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.pending.length) {
      const text = this.pending.join('');
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        await mkdir(join(this.path, '..'), { recursive: true, mode: 0o700 });
        await appendFile(this.path, text, { encoding: 'utf8', mode: 0o600, flag: 'a' });
      } catch (e) {
        this.onError(e as Error);
      }
      for (const w of waiters) w();
    }
    this.writing = null;
  }
}

const logs = new Map<string, AuditLog>();

/** The one AuditLog of a state folder, shared by the ask loop and tools/call so their lines keep one order. */
export function auditLogFor(stateDir: string): AuditLog {
  const path = auditPath(stateDir);
  let log = logs.get(path);
  if (!log) { log = new AuditLog(path); logs.set(path, log); }
  return log;
}
