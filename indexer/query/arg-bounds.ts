// Bounds on a tool call's shape, checked before the strict schema sees it.
// Every tool takes a flat object of scalars, but the arguments arrive from a
// client or a model as arbitrary JSON: a value nested 200,000 levels deep parses
// fine (V8's JSON.parse is iterative) and then overflows the stack of anything
// recursive that touches it — the validator's messages, JSON.stringify for the
// audit log or a notification. So the shape is measured here without recursion
// and with early exit, and a call past the bounds is refused with one line.
import { ToolError } from '../errors.js';
import { validateToolCall, type ToolCall } from './schemas.js';

/** Far above any honest call (depth 1, a handful of scalars), far below what could hurt. */
export const MAX_ARG_DEPTH = 8;
export const MAX_ARG_VALUES = 1_000;
/** Total characters over every string (keys included). */
export const MAX_ARG_CHARS = 100_000;
const MAX_NAME_CHARS = 200;

/** Why `value` is past the bounds, or null when it is within them. Never recurses; stops at the first excess. */
export function shapeExcess(value: unknown): string | null {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 0 }];
  let values = 0;
  let chars = 0;
  while (stack.length) {
    const { v, depth } = stack.pop()!;
    if (++values > MAX_ARG_VALUES) return `the arguments hold more than ${MAX_ARG_VALUES} values`;
    if (typeof v === 'string') {
      chars += v.length;
      if (chars > MAX_ARG_CHARS) return `the arguments hold more than ${MAX_ARG_CHARS} characters of text`;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_ARG_DEPTH) return `the arguments nest deeper than ${MAX_ARG_DEPTH} levels`;
    if (Array.isArray(v)) {
      // Length is checked before anything is pushed, so a huge array costs nothing.
      if (values + stack.length + v.length > MAX_ARG_VALUES) return `the arguments hold more than ${MAX_ARG_VALUES} values`;
      for (const x of v) stack.push({ v: x, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(v);
    if (values + stack.length + keys.length > MAX_ARG_VALUES) return `the arguments hold more than ${MAX_ARG_VALUES} values`;
    for (const k of keys) {
      chars += k.length;
      if (chars > MAX_ARG_CHARS) return `the arguments hold more than ${MAX_ARG_CHARS} characters of text`;
      stack.push({ v: (v as Record<string, unknown>)[k], depth: depth + 1 });
    }
  }
  return null;
}

/** The refusal for a call whose name or arguments are past the bounds, or null when both are within them. */
export function boundsRefusal(name: unknown, args: unknown): ToolError | null {
  if (typeof name !== 'string') {
    return new ToolError('unknown_tool', `a tool name must be a string, got ${name === null ? 'null' : Array.isArray(name) ? 'an array' : typeof name}`);
  }
  if (name.length > MAX_NAME_CHARS) {
    return new ToolError('unknown_tool', `unknown tool ${JSON.stringify(name.slice(0, 40))}... (${name.length} characters)`);
  }
  const why = shapeExcess(args);
  return why === null ? null : new ToolError('invalid_arguments', `${name}: refused before validation: ${why}; every tool takes a flat object of a few scalar fields`);
}

/** The one gate for a tool call from outside: shape bounds, then exact name and strict schema. Throws ToolError. */
export function checkToolCall(name: unknown, args: unknown): ToolCall {
  const refusal = boundsRefusal(name, args);
  if (refusal) throw refusal;
  return validateToolCall(name, args);
}

/**
 * Arguments as logs, events and the model's own history show them: the value
 * itself, or — when its shape makes serialising it unsafe — an object saying why
 * it is not shown (an object, so it still fits where arguments are expected).
 */
export function argumentsForLog(args: unknown): unknown {
  const why = shapeExcess(args);
  return why === null ? args : { not_shown: why };
}

/** A tool name as logs show it: a string as it is (cut to the name limit), anything else as short JSON. */
export function nameForLog(name: unknown): string {
  if (typeof name === 'string') return name.length > MAX_NAME_CHARS ? `${name.slice(0, MAX_NAME_CHARS)}...` : name;
  const why = shapeExcess(name ?? null);
  return why === null ? JSON.stringify(name ?? null).slice(0, MAX_NAME_CHARS) : `(not shown: ${why})`;
}
