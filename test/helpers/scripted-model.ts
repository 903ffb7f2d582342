// A second implementation of the ask loop's ChatModel (daemon/ask/model.ts),
// in-process: each turn replays a scripted reply through the same
// ReplyAssembly every API uses, and every request the loop makes is kept. It
// stands where an API implementation stands, so it shows what the loop asks
// of any model and does with any reply — ids on calls, arguments left as
// text, a `length` stop, a prompt count — that the fake Ollama's wire never
// sends. The fake Ollama tests remain the end-to-end proof for Ollama.
import { ReplyAssembly } from '../../daemon/ask/assembly.js';
import {
  ModelError, type ChatMessage, type ChatModel, type ModelDescription, type ModelFacts, type ModelReply, type ModelToolCall,
  type TextDelta, type TurnRequest,
} from '../../daemon/ask/model.js';

export interface ScriptedTurn {
  /** Thinking the API sends as such, piece by piece. */
  thinking?: string[];
  /** Visible text piece by piece (may hold <think> tags, cut anywhere). */
  content?: string[];
  toolCalls?: ModelToolCall[];
  doneReason?: string;
  promptTokens?: number;
  /** Rejects with this instead of replying. */
  fail?: unknown;
  /** After the pieces, waits for the request's signal and rejects with its reason (a model still writing). */
  hang?: boolean;
}

/** A turn request as it was made: the messages copied, since the loop later shrinks old results in place. */
export type SeenRequest = Omit<TurnRequest, 'messages'> & { messages: ChatMessage[] };

export const SCRIPTED_DESCRIPTION: ModelDescription = { version: 'scripted-1', digest: 'sha256:scripted' };

export class ScriptedModel implements ChatModel {
  readonly requests: SeenRequest[] = [];
  /** Every signal the loop handed to check, describe and turn. */
  readonly signals: AbortSignal[] = [];

  constructor(private readonly turns: ScriptedTurn[], private readonly facts: ModelFacts | ModelError = { contextLength: 4096 }) {}

  async check(signal: AbortSignal): Promise<ModelFacts> {
    this.signals.push(signal);
    if (this.facts instanceof ModelError) throw this.facts;
    return this.facts;
  }

  async describe(signal: AbortSignal): Promise<ModelDescription> {
    this.signals.push(signal);
    return SCRIPTED_DESCRIPTION;
  }

  async turn(request: TurnRequest, onText: TextDelta): Promise<ModelReply> {
    this.signals.push(request.signal);
    this.requests.push({ ...request, messages: structuredClone([...request.messages]) });
    const turn = this.turns.shift();
    if (!turn) throw new ModelError('ollama_bad_reply', 'scripted model: no turn left');
    if (turn.fail !== undefined) throw turn.fail;
    const reply = new ReplyAssembly(onText, request.maxReplyChars);
    for (const t of turn.thinking ?? []) reply.thinking(t);
    for (const c of turn.content ?? []) reply.content(c);
    reply.toolCalls(turn.toolCalls ?? []);
    if (turn.hang) {
      await new Promise<never>((_, reject) => {
        if (request.signal.aborted) reject(request.signal.reason);
        request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
      });
    }
    return reply.end(turn.doneReason, turn.promptTokens);
  }
}
