// Every refusal and failure a tool can report. The code is stable (scripts and
// the Ollama loop branch on it); the message is one line for a human or a model.

export const ERROR_CODES = [
  'invalid_arguments', // schema rejected the arguments (unknown/missing field, wrong type, out of range)
  'unknown_tool',      // name not on the allowlist
  'path_denied',       // absolute, escapes the root, NUL byte, encoded escape, symlink out of root
  'secret_denied',     // the path is a secret file (docs/tools.md, What is indexed): never indexed, searched or read
  'not_indexed',       // a path inside the root that the index does not hold (ignored, binary, too big, missing)
  'out_of_range',      // a line number past the end of the file
  'not_a_git_repo',    // read_git_diff on a root that is not inside a git work tree
  'bad_ref',           // read_git_diff base that does not verify or starts with '-'
  'git_failed',        // git ran and failed for another reason
  'index_unavailable', // no index yet / index is being built and cannot answer
  'no_space',          // an index write could not land: the state folder's disk is full (index/refresh, `evidex index`; never a tool's answer)
  'internal_error',    // a bug: reported, never crashes the daemon
] as const;
// An answer too large for one message is refused by the transport, not by a
// tool: its code, answer_too_large, is ANSWER_TOO_LARGE in protocol/jsonrpc.ts.
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Where a message writes a call it names: query/notes.ts's PlacedCall (the tool and its arguments too), which the wire carries as is. */
export interface Placed { readonly at: number; readonly length: number }

export class ToolError extends Error {
  /**
   * `paths`: the repository paths (root-relative) the message names, each
   * written whole in it, so a reader elsewhere in the tree can be shown them
   * from there (tools/call's `shown_from`); never on the wire.
   * `calls`: the calls the message names, each where it writes it
   * (query/notes.ts, PlacedCall), so a client shows them in its own words;
   * sent as the refusal's `calls`.
   */
  readonly calls: readonly Placed[];
  constructor(readonly code: ErrorCode, message: string, readonly paths: readonly string[] = [], calls: readonly Placed[] = []) {
    // One line, always: a model gets this text back verbatim. The calls move with the text they sit in.
    const line = oneLine(message);
    super(line.text);
    this.name = 'ToolError';
    this.calls = calls.map((c) => ({ ...c, at: line.at(c.at), length: line.at(c.at + c.length) - line.at(c.at) }));
  }
  toJSON(): { code: ErrorCode; message: string; calls?: readonly Placed[] } {
    return { code: this.code, message: this.message, ...(this.calls.length ? { calls: this.calls } : {}) };
  }
}

/**
 * `text` with each line break and the blanks around it made one space, and
 * where an offset of `text` is in the result (an offset inside a collapsed
 * run is after its space).
 */
function oneLine(text: string): { text: string; at(offset: number): number } {
  const runs: Array<{ from: number; to: number }> = [];
  for (const m of text.matchAll(/\s*\n\s*/g)) runs.push({ from: m.index, to: m.index + m[0].length });
  if (runs.length === 0) return { text, at: (offset) => offset };
  let out = '';
  let last = 0;
  for (const r of runs) { out += `${text.slice(last, r.from)} `; last = r.to; }
  out += text.slice(last);
  return {
    text: out,
    at(offset) {
      let removed = 0;
      for (const r of runs) {
        if (offset <= r.from) break;
        if (offset < r.to) return r.from - removed + 1;
        removed += r.to - r.from - 1;
      }
      return offset - removed;
    },
  };
}

/** Turns anything thrown into a ToolError, keeping ToolErrors as they are. */
export function asToolError(err: unknown): ToolError {
  if (err instanceof ToolError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new ToolError('internal_error', `internal error: ${msg}`);
}
