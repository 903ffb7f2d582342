// The wire types of `ask`: what one question reports while it runs (AskEvent,
// streamed to the client as notifications) and what it returns (AskResult).
// Both ends use them (daemon/ask/ builds them, the CLI reads them), so they
// live in the protocol and are plain JSON: no classes, no Dates, no Maps.
import type { Evidence } from '../indexer/evidence.js';
import type { ModelApi } from './messages.js';

/**
 * answered: a final answer. incomplete: the reply was cut at the model's output
 * limit (done_reason "length"); the partial text is in `answer`. empty_reply:
 * empty twice. context_full: the question, system prompt and tool list alone do
 * not fit the window. The rest stop without an answer.
 */
export type StopReason = 'answered' | 'incomplete' | 'empty_reply' | 'context_full' | 'refused_twice' | 'step_cap' | 'time_limit' | 'cancelled' | 'model_error';

/**
 * Why talking to the model's server failed; each gets its own one-line
 * message (daemon/ask/ollama/client.ts, daemon/ask/openai/errors.ts). The
 * `ollama_` codes are Ollama's API, the `api_` codes an OpenAI-compatible
 * server's; the `model_` codes are either's.
 */
export type AskErrorCode =
  | 'ollama_unreachable'  // connection refused / host unknown: Ollama is not running at OLLAMA_HOST
  | 'model_not_found'     // the model is not installed (Ollama) or not served (OpenAI-compatible)
  | 'model_no_tools'      // the model cannot call tools: /api/show, a 400 from /api/chat, or the server's quirk (llama-server without --jinja, vLLM without --enable-auto-tool-choice)
  | 'ollama_http_error'   // any other non-2xx answer
  | 'ollama_stream_error' // an {"error": ...} line inside a 200 stream
  | 'ollama_stream_cut'   // the stream ended or broke before its `done: true` line
  | 'ollama_bad_reply'    // a reply evidex cannot use (no message, malformed tool call list)
  | 'api_unreachable'     // nothing answers at EVIDEX_API_BASE
  | 'api_http_error'      // a non-2xx answer, or something that is not an OpenAI-compatible API
  | 'api_stream_error'    // an error event inside a 200 stream
  | 'api_stream_cut'      // the stream ended or broke before a finish_reason
  | 'api_bad_reply';      // a reply evidex cannot use (a line past its bound, data that is not JSON)

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
  reason?: UnbackedReason;          // set when not backed: why
}

/**
 * Why a citation is not backed: the file was shown but not those lines; an
 * indexed file the model never saw; no file of the index at all (missing,
 * ignored, secret, or outside the repository).
 */
export type UnbackedReason = 'lines_not_shown' | 'file_not_shown' | 'no_such_file';

export type AskEvent =
  | { type: 'started'; questionId: string; model: string; host: string; maxSteps: number; timeoutMs: number; api?: ModelApi } // api: set for an OpenAI-compatible server
  | { type: 'step'; step: number; maxSteps: number }
  | { type: 'thinking'; step: number; text: string }          // a delta of the model's thinking
  | { type: 'content'; step: number; text: string }           // a delta of the model's visible text (the answer, on the last step)
  | { type: 'tool_running'; step: number; index: number; name: string } // a call passed its checks and runs now (its tool_call follows when it is answered)
  | { type: 'tool_call'; step: number; index: number; name: string; arguments: unknown;
      decision: 'allowed' | 'refused'; code?: string; reason?: string }
  | { type: 'model'; numCtx: number; contextLength?: number }    // after the model check: the window every request asks for
  | { type: 'tool_result'; step: number; index: number; name: string; items: number; total: number; generation: number; ms: number;
      shown: number; refs: number }                            // items sent with their text / as bare path:line references
  | { type: 'summarised'; step: number; results: number }     // older tool results reduced to path:line lists to make room
  | { type: 'calls_not_run'; step: number; asked: number; cap: number } // a reply asked for more calls than run per turn: those past `cap` were not run
  | { type: 'empty_reply'; step: number; retrying: boolean }
  | { type: 'context_cut'; step: number; promptEvalCount: number; numCtx: number } // the server's count (Ollama's prompt_eval_count, usage.prompt_tokens) shows it cut the prompt
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
  ollama?: { version?: string; digest?: string }; // when asked for (describe_model): the server's version (and Ollama's model digest)
  api?: ModelApi;                   // set for an OpenAI-compatible server (absent: Ollama)
}

/** One model turn: how long it took, what the prompt was estimated at and what Ollama counted. */
export interface TurnLog {
  step: number;
  ms: number;
  estimate: number;                 // evidex's (high-side) token estimate of the prompt
  promptEvalCount?: number;         // Ollama's count, when it reported one
  doneReason?: string;              // how the reply ended, as the server said; `over_window`: the server refused the prompt as over its window, and was asked again with less
}
