// The one mapping of everything a client command can fail with to what the
// user sees: a code, a one-line message and the exit status. Refusals (bad
// arguments, a tool's refusal, an answer too large) exit 2; every other
// failure (daemon unreachable or shutting down, an internal error, a protocol
// fault) exits 1 — it is not the caller's input that was wrong. An error is
// defined where it is thrown (UsageError in command.ts, ConnectionError in
// connection.ts, RpcError in protocol/jsonrpc.ts), or here when a command
// refuses on its own (Refusal), so this file is loaded only once something
// failed (cli.ts's report) or by `call`.
import { ToolError } from '../indexer/errors.js';
import { HomeNotAbsolute } from '../local/home.js';
import { NoSuchFolder } from '../local/root.js';
import { StateNotYoursError } from '../local/state-trust.js';
import { ConnectionClosed, RpcCode, RpcError } from '../protocol/jsonrpc.js';
import { ASK_ERROR, MESSAGE_TOO_LARGE, SHUTTING_DOWN, TOOL_ERROR } from '../protocol/messages.js';
import { UsageError } from './command.js';
import { ConnectionError } from './connection.js';
import { OutsideRoot, RootNotFile } from './paths.js';
import { whenIn } from '../local/when.js';

export const EXIT_REFUSED = 2;
export const EXIT_FAILED = 1;

/** Codes that are not the caller's input being wrong: evidex's own bug, and a disk with no room for the index (index/refresh, `evidex index`). */
const FAILURES: ReadonlySet<string> = new Set(['internal_error', 'no_space']);

/** A refusal decided on the client before anything is sent (e.g. JSON_ARGS that is not JSON), in a tool's own terms. */
export class Refusal extends Error {
  constructor(readonly code: string, message: string) { super(message); this.name = 'Refusal'; }
}

export interface UserError {
  code: string;
  message: string;
  exit: typeof EXIT_REFUSED | typeof EXIT_FAILED;
  /** A usage error reads best as plain words; other errors name their code. */
  plain: boolean;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/** The `{code, message}` a daemon puts in an error's data, when it did. */
function dataOf(e: RpcError): { code?: string; message?: string } {
  const d = e.data as { code?: unknown; message?: unknown } | undefined;
  return {
    code: typeof d?.code === 'string' ? d.code : undefined,
    message: typeof d?.message === 'string' ? d.message : undefined,
  };
}

export function userError(e: unknown): UserError {
  if (e instanceof UsageError) return { code: 'invalid_arguments', message: oneLine(e.message), exit: EXIT_REFUSED, plain: true };
  if (e instanceof HomeNotAbsolute) return { code: 'invalid_arguments', message: e.message, exit: EXIT_REFUSED, plain: true };
  if (e instanceof NoSuchFolder) return { code: 'invalid_arguments', message: oneLine(e.message), exit: EXIT_REFUSED, plain: true };
  if (e instanceof OutsideRoot) return { code: 'path_denied', message: oneLine(e.message), exit: EXIT_REFUSED, plain: false };
  if (e instanceof RootNotFile) return { code: 'not_indexed', message: oneLine(e.message), exit: EXIT_REFUSED, plain: false };
  if (e instanceof Refusal) return { code: e.code, message: oneLine(e.message), exit: EXIT_REFUSED, plain: false };
  if (e instanceof ConnectionError) return { code: 'daemon_unavailable', message: oneLine(e.message), exit: EXIT_FAILED, plain: true };
  // The connection went with the answer pending. 1001 is the daemon's stop, 1006 a daemon gone without a word (killed):
  // no fault of the command, and the next one starts a daemon. Any other close (a message over the limit) is said as it is.
  if (e instanceof ConnectionClosed) {
    const gone = e.closeCode === 1001 || e.closeCode === 1006;
    const message = gone
      ? `the evidex daemon stopped while this command ran (${e.reason}); run it again: it starts a new daemon`
      : `the connection to the evidex daemon closed while this command ran (${e.reason})`;
    return { code: 'daemon_unavailable', message, exit: EXIT_FAILED, plain: true };
  }
  // State another user could have planted: refused before anything was read or sent (local/state-trust.ts).
  if (e instanceof StateNotYoursError) return { code: e.code, message: oneLine(e.message), exit: EXIT_FAILED, plain: true };
  // What the index itself refused in this process (`evidex index` without a daemon: a full disk).
  if (e instanceof ToolError) return { code: e.code, message: e.message, exit: FAILURES.has(e.code) ? EXIT_FAILED : EXIT_REFUSED, plain: false };
  if (e instanceof RpcError) {
    const d = dataOf(e);
    const message = oneLine(d.message ?? e.message);
    switch (e.code) {
      case TOOL_ERROR:
        // A gone or replaced root: the daemon's own sentence says since when in ISO UTC, read here as daemon status reads it.
        if (d.code === 'index_unavailable') return { code: d.code, message: whenIn(message), exit: EXIT_REFUSED, plain: false };
        // A tool's own bug (or a full disk) is reported as one, not as the caller's refusal.
        return { code: d.code ?? 'tool_error', message, exit: d.code !== undefined && FAILURES.has(d.code) ? EXIT_FAILED : EXIT_REFUSED, plain: false };
      case RpcCode.INVALID_PARAMS: return { code: 'invalid_arguments', message, exit: EXIT_REFUSED, plain: false };
      case MESSAGE_TOO_LARGE: return { code: d.code ?? 'message_too_large', message, exit: EXIT_REFUSED, plain: false };
      case ASK_ERROR: return { code: d.code ?? 'ask_failed', message, exit: EXIT_FAILED, plain: false };
      case SHUTTING_DOWN: return { code: 'daemon_shutting_down', message, exit: EXIT_FAILED, plain: false };
      case RpcCode.INTERNAL_ERROR: return { code: 'internal_error', message, exit: EXIT_FAILED, plain: false };
      default: return { code: 'protocol_error', message, exit: EXIT_FAILED, plain: false };
    }
  }
  if (isCwdGone(e)) return { code: 'cwd_gone', message: CWD_GONE, exit: EXIT_FAILED, plain: true };
  return { code: 'internal_error', message: oneLine(e instanceof Error ? e.message : String(e)), exit: EXIT_FAILED, plain: true };
}

/** The current folder was deleted under the shell (a `git checkout` that removed it): Node cannot even name it (uv_cwd). */
function isCwdGone(e: unknown): boolean {
  const err = e as NodeJS.ErrnoException | null;
  return err instanceof Error && err.code === 'ENOENT' && err.syscall === 'uv_cwd';
}

const CWD_GONE = 'the current folder no longer exists (deleted or moved, as a git checkout can do): cd to a folder that exists and run the command again';
