// Dispatch: what happens to every request between the connection and a
// method's handler. The method's wire name is looked up (protocol/messages.ts),
// its params validated against the method's zod schema (methods.ts), and its
// one handler called; whatever is thrown comes out as an RpcError (a refusal
// keeps its code, a bug becomes an internal error and a log line). Nothing
// here knows what a method does: the handlers table is the daemon's
// (server.ts), and `C` is whatever the daemon passes as the caller.
import type { z } from 'zod';
import { ToolError } from '../indexer/errors.js';
import { isToolName } from '../indexer/query/schemas.js';
import { issueWords } from '../indexer/query/issue-words.js';
import { RpcCode, RpcError, type RequestContext } from '../protocol/jsonrpc.js';
import { Methods, methodKeyOf, TOOL_ERROR, type MethodKey, type ParamsOf, type ResultOf } from '../protocol/messages.js';
import { ParamsSchemas } from './methods.js';

/** One method's handler: its validated params in, its result (or a promise of it) out. */
export type Handler<K extends MethodKey, C> = (params: ParamsOf<K>, caller: C, ctx: RequestContext) => ResultOf<K> | Promise<ResultOf<K>>;
export type Handlers<C> = { [K in MethodKey]: Handler<K, C> };

export interface DispatchOptions<C> {
  handlers: Handlers<C>;
  /** Called before a known method's params are checked; throws (an RpcError) to refuse it, e.g. while shutting down. */
  admit: (key: MethodKey) => void;
  /**
   * Called with what a handler threw before it is answered: the refusal to
   * answer instead (a call the daemon's stop cut short is refused as a call
   * after the stop is), or null to answer it as it is.
   */
  overrule: (e: unknown) => RpcError | null;
  /** Logs an unexpected exception (a bug) with the method and the caller it happened for. */
  logInternal: (method: string, caller: C, e: unknown) => void;
}

export class Dispatcher<C> {
  constructor(private readonly opts: DispatchOptions<C>) {}

  /**
   * Every request passes here: method lookup, params schema, then the
   * method's handler; nothing thrown escapes as anything but an RpcError. A
   * handler's value is returned as it is, which the connection sends at once
   * (RequestHandler in protocol/jsonrpc.ts); a promise is returned as one.
   */
  dispatch(caller: C, method: string, params: unknown, ctx: RequestContext): unknown {
    const key = methodKeyOf(method);
    if (!key) throw new RpcError(RpcCode.METHOD_NOT_FOUND, `method not found: ${method}`);
    this.opts.admit(key);
    try {
      const out = this.run(key, params, caller, ctx);
      return out instanceof Promise ? out.catch((e: unknown) => { throw this.rpcErrorOf(e, method, caller); }) : out;
    } catch (e) {
      throw this.rpcErrorOf(e, method, caller);
    }
  }

  /** Validates `params` with method K's schema and calls K's handler: the one place the key ties schema, handler and types. */
  private run<K extends MethodKey>(key: K, params: unknown, caller: C, ctx: RequestContext): unknown {
    const parsed = (ParamsSchemas[key] as z.ZodType<ParamsOf<K>>).safeParse(params);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const message = `${Methods[key].method}: ${issue ? issueWords(issue, params, 'params') : 'params: invalid'}`;
      throw new RpcError(RpcCode.INVALID_PARAMS, message, { code: 'invalid_arguments', message });
    }
    return (this.opts.handlers[key] as Handler<K, C>)(parsed.data, caller, ctx);
  }

  /** Unless overruled, a refusal keeps its code (TOOL_ERROR carries the tool's); anything else is a bug: logged, answered as an internal error. */
  private rpcErrorOf(e: unknown, method: string, caller: C): RpcError {
    const instead = this.opts.overrule(e);
    if (instead) return instead;
    if (e instanceof RpcError) return e;
    if (e instanceof ToolError) return new RpcError(TOOL_ERROR, e.message, e.toJSON());
    this.opts.logInternal(method, caller, e);
    return new RpcError(RpcCode.INTERNAL_ERROR, `internal error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The latency histogram a client's request counts in: one per method, and per
 * tool for tools/call. Method and tool names a client made up share one
 * histogram each, so no client can grow the daemon's memory with new names.
 */
export function latencyName(method: string, params: unknown): string {
  if (method === Methods.toolsCall.method) {
    const name = (params as { name?: unknown } | null | undefined)?.name;
    return `${method} ${isToolName(name) ? name : '(unknown tool)'}`;
  }
  return methodKeyOf(method) ? method : '(unknown method)';
}
