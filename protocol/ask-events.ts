// The wire types of `ask`: what one question reports while it runs (AskEvent,
// streamed to the client as notifications) and what it returns (AskResult).
// Both ends use them (daemon/ask/ builds them, the CLI reads them), so they
// live in the protocol and are plain JSON: no classes, no Dates, no Maps.
import type { Evidence } from '../indexer/evidence.js';

/**
 * answered: a final answer. incomplete: the reply was cut at the model's output
 * limit (done_reason "length"); the partial text is in `answer`. empty_reply:
 * empty twice. context_full: the question, system prompt and tool list alone do
 * not fit the window. The rest stop without an answer.
 */
export type StopReason = 'answered' | 'incomplete' | 'empty_reply' | 'context_full' | 'refused_twice' | 'step_cap' | 'time_limit' | 'cancelled' | 'model_error';

/** Why talking to Ollama failed; each gets its own one-line message (see daemon/ask/ollama/client.ts). */
export type AskErrorCode =
  | 'ollama_unreachable'  // connection refused / host unknown: Ollama is not running at OLLAMA_HOST
  | 'model_not_found'     // HTTP 404: the model is not installed
  | 'model_no_tools'      // the model lacks the `tools` capability (from /api/show, or a 400 from /api/chat)
  | 'ollama_http_error'   // any other non-2xx answer
  | 'ollama_stream_error' // an {"error": ...} line inside a 200 stream
  | 'ollama_stream_cut'   // the stream ended or broke before its `done: true` line
  | 'ollama_bad_reply';   // a reply evidex cannot use (no message, malformed tool call list)

export interface AskFailure { code: AskErrorCode; message: string }

/** One tool call the model asked for, as decided and (when allowed) run. */
export interface AttemptLog {
  step: number;                     // the model turn that asked for it (1-based)
  tool: string;                     // the name exactly as the model sent it
  arguments: unknown;               // exactly as the model sent them (never repaired)
  decision: 'allowed' | 'refused' | 'not_run'; // not_run: past the cap on calls per model turn
  code?: string;                    // ToolError code when refused (unknown_tool, invalid_arguments, path_denied, ...); calls_per_turn when not run
  reason?: string;                  // the one-line reason (what the model got back, for a refusal)
  items?: number;                   // evidence items returned (allowed calls)
  total?: number;                   // matches in all (allowed calls)
  ms: number;                       // validation + run time
}

export interface CitationCheck {
  cite: string;                     // as written in the answer, e.g. "src/rag_common.py:12-14", "lines 10-14 of src/app.py", "src/app.py"
  path: string;
  start_line?: number;              // absent for a path named without a line
  end_line?: number;
  backed: boolean;                  // every cited line (a path alone: some line) lies inside evidence gathered for this question
}

export type AskEvent =
  | { type: 'started'; questionId: string; model: string; host: string; maxSteps: number; timeoutMs: number }
  | { type: 'step'; step: number; maxSteps: number }
  | { type: 'thinking'; step: number; text: string }          // a delta of the model's thinking
  | { type: 'content'; step: number; text: string }           // a delta of the model's visible text (the answer, on the last step)
  | { type: 'tool_call'; step: number; index: number; name: string; arguments: unknown;
      decision: 'allowed' | 'refused'; code?: string; reason?: string }
  | { type: 'model'; numCtx: number; contextLength?: number }    // after the model check: the window every request asks for
  | { type: 'tool_result'; step: number; index: number; name: string; items: number; total: number; generation: number; ms: number;
      shown: number; refs: number }                            // items sent with their text / as bare path:line references
  | { type: 'summarised'; step: number; results: number }     // older tool results reduced to path:line lists to make room
  | { type: 'calls_not_run'; step: number; asked: number; cap: number } // a reply asked for more calls than run per turn: those past `cap` were not run
  | { type: 'empty_reply'; step: number; retrying: boolean }
  | { type: 'context_cut'; step: number; promptEvalCount: number; numCtx: number } // Ollama's count shows it cut the prompt
  | { type: 'citations'; citations: CitationCheck[]; uncited?: true } // uncited: the answer names code, cites nothing, and tools ran
  | { type: 'stopped'; why: StopReason; message?: string };

export interface AskResult {
  questionId: string;
  model: string;
  answer: string;                   // the model's final text ('' when it never answered)
  evidence: Evidence[];             // every item the model was shown for this question, in order
  citations: CitationCheck[];       // each distinct path:line the answer cites, checked against `evidence`
  uncited?: true;                   // the answer states facts about the code, cites nothing, and tools ran ("cites no evidence", exit 5)
  stopped: StopReason;
  message?: string;                 // for every stop but `answered`: what happened, for the user
  error?: AskFailure;               // set when stopped is `model_error`
  attempts: AttemptLog[];
  steps: number;                    // model turns taken
  turns: TurnLog[];                 // one per model turn, in order
  numCtx?: number;                  // the window every request asked for (once the model was checked)
  contextCuts: number;              // turns where Ollama's prompt_eval_count showed the prompt was cut
  ollama?: { version?: string; digest?: string }; // when asked for (describe_model)
}

/** One model turn: how long it took, what the prompt was estimated at and what Ollama counted. */
export interface TurnLog {
  step: number;
  ms: number;
  estimate: number;                 // evidex's (high-side) token estimate of the prompt
  promptEvalCount?: number;         // Ollama's count, when it reported one
  doneReason?: string;
}
