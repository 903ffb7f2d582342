// What a schema refused, said in plain words once for every caller: tool
// arguments (CLI `evidex call`, tools/call over MCP and the daemon, the ask
// loop's refusal) and MCP request params. zod's own wording ("Invalid input:
// expected string, received undefined") names its types, not the caller's
// mistake: `name is required` does.
/** As much of a zod issue as is read here (MCP's SDK hands over its own zod's issues, of the same shape). */
export interface Issue {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
  readonly code?: string;
  readonly expected?: string;
  readonly origin?: string;
  readonly minimum?: number | bigint;
  readonly maximum?: number | bigint;
  readonly keys?: ReadonlyArray<string>;
  readonly values?: ReadonlyArray<unknown>;
  readonly errors?: ReadonlyArray<ReadonlyArray<Issue>>;
}

/** zod's default messages start so; any other message was written by the schema itself and is kept as it is. */
const ZOD_WORDING = /^(Invalid input|Invalid option|Too big|Too small|Unrecognized key)/;

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string', number: 'a number', int: 'a whole number', boolean: 'true or false', object: 'an object',
  record: 'an object', array: 'an array', bigint: 'a whole number', null: 'null',
};

/** The value at `path` in `input`, or undefined when the path leads nowhere. */
function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let v = input;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/** A value's kind as a user says it: `number`, `null`, `array`. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

const quoted = (vs: ReadonlyArray<unknown>): string => vs.map((v) => JSON.stringify(v)).join(', ');

/**
 * One issue in words: `name is required`, `name must be a string, got number`,
 * `unknown key "bogus"; the keys are name, kind`, `limit must be at most 200, got 300`.
 * `input` is what was checked (zod does not keep it in the issue); `root` names
 * the whole of it (e.g. "arguments"); `keys`, when known, are the fields it takes.
 */
export function issueWords(issue: Issue, input: unknown, root: string, keys?: ReadonlyArray<string>): string {
  const where = issue.path.length ? issue.path.map(String).join('.') : root;
  const value = valueAt(input, issue.path);
  if (!ZOD_WORDING.test(issue.message)) return `${where}: ${issue.message}`;
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined && issue.path.length) return `${where} is required`;
      if (issue.expected === 'int' && typeof value === 'number') return `${where} must be a whole number, got ${value}`;
      return `${where} must be ${TYPE_WORDS[issue.expected ?? ''] ?? issue.expected}, got ${kindOf(value)}`;
    case 'invalid_union': {
      const types = (issue.errors ?? []).map((e) => (e.length === 1 && e[0].code === 'invalid_type' && e[0].path.length === 0 ? e[0].expected : undefined));
      if (types.length === 0 || types.some((t) => t === undefined)) break;
      return `${where} must be ${types.map((t) => TYPE_WORDS[t!] ?? t).join(' or ')}, got ${kindOf(value)}`;
    }
    case 'unrecognized_keys': {
      const unknown = issue.keys ?? [];
      const within = issue.path.length ? ` in ${where}` : '';
      const known = keys?.length ? `; the keys are ${keys.join(', ')}` : '';
      return `unknown ${unknown.length === 1 ? 'key' : 'keys'} ${quoted(unknown)}${within}${known}`;
    }
    case 'invalid_value':
      return `${where} must be one of ${quoted(issue.values ?? [])}, got ${JSON.stringify(value) ?? kindOf(value)}`;
    case 'too_big':
      if (issue.origin === 'string' && typeof value === 'string') return `${where} is too long: ${value.length} characters, at most ${issue.maximum}`;
      if (issue.origin === 'number') return `${where} must be at most ${issue.maximum}, got ${String(value)}`;
      break;
    case 'too_small':
      if (issue.origin === 'string') return issue.minimum === 1 ? `${where} must not be empty` : `${where} must be at least ${issue.minimum} characters`;
      if (issue.origin === 'number') return `${where} must be at least ${issue.minimum}, got ${String(value)}`;
      break;
  }
  return `${where}: ${issue.message}`;
}
