// Who may talk to `evidex mcp --http`, decided from the request's headers
// before its body is read, in this order:
//
//   1. Host must name this server: a loopback name or the address it listens
//      on, with its port. A web page that rebinds its own name to this machine
//      (DNS rebinding) still sends its name as Host: 403.
//   2. Origin, when a browser sends one, must be one the user allowed
//      (--allow-origin); none is by default, since MCP hosts are programs,
//      which send no Origin: 403.
//   3. The bearer token: 401, with nothing run.
//
// A CORS preflight (OPTIONS) from an allowed origin is answered after 1 and 2:
// a browser sends it without the token.
import type { IncomingHttpHeaders } from 'node:http';
import { bearerOf, tokensEqual } from '../../local/bearer.js';
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { isIP } = process.getBuiltinModule('node:net');
const { networkInterfaces } = process.getBuiltinModule('node:os');

export interface AccessRules {
  /** `host:port` values (lower case) a request's Host may take. */
  hosts: ReadonlySet<string>;
  /** Origins a browser may call from (--allow-origin); empty by default. */
  origins: ReadonlySet<string>;
  token: string;
}

export type Verdict =
  | { ok: true; preflight: boolean }
  | { ok: false; status: 401 | 403; reason: string };

/** True for an address only this machine can reach (127.0.0.0/8, ::1). */
export function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === '::1' || /^::ffff:127\./i.test(address);
}

const hostPart = (address: string): string => (isIP(address) === 6 ? `[${address.toLowerCase()}]` : address.toLowerCase());

/**
 * The Host values a server listening on `address:port` answers to: the
 * loopback names, the address itself, and, for a wildcard address (0.0.0.0,
 * ::), every address of this machine's interfaces. Names other than
 * `localhost` are never taken: a rebinding page arrives by a name.
 */
export function hostsFor(address: string, port: number): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]']);
  if (address === '0.0.0.0' || address === '::') {
    for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) names.add(hostPart(i.address.replace(/%.*$/, '')));
  } else {
    names.add(hostPart(address));
  }
  const out = new Set<string>();
  for (const n of names) {
    out.add(`${n}:${port}`);
    if (port === 80) out.add(n);
  }
  return out;
}

/** An origin as browsers send it (`scheme://host[:port]`), or null for anything else. */
export function normalOrigin(v: string): string | null {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === v.replace(/\/$/, '').toLowerCase() ? u.origin : null;
  } catch {
    return null;
  }
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? (v.length === 1 ? v[0] : undefined) : v);

/** The verdict on one request's headers (`method` for the preflight). */
export function checkAccess(method: string | undefined, headers: IncomingHttpHeaders, rules: AccessRules): Verdict {
  const host = one(headers.host);
  if (!host || !rules.hosts.has(host.toLowerCase())) {
    return { ok: false, status: 403, reason: `Host ${JSON.stringify(host ?? '')} is not this server's address (reach it as http://${[...rules.hosts][0]}/mcp or by the address it listens on)` };
  }
  const origin = headers.origin;
  if (origin !== undefined && !rules.origins.has(String(origin))) {
    return { ok: false, status: 403, reason: `Origin ${JSON.stringify(String(origin))} is not allowed (a web page may not call this server; start it with --allow-origin to allow one)` };
  }
  if (method === 'OPTIONS') return { ok: true, preflight: true };
  const presented = bearerOf(one(headers.authorization));
  if (presented === null) return { ok: false, status: 401, reason: 'no bearer token: send "Authorization: Bearer TOKEN" with the token evidex mcp --http printed when it started' };
  if (!tokensEqual(presented, rules.token)) return { ok: false, status: 401, reason: 'wrong bearer token' };
  return { ok: true, preflight: false };
}

/** The CORS headers of an answer to an allowed browser origin (none for a program, which sends no Origin). */
export function corsHeaders(origin: string | undefined, preflight: boolean): Record<string, string> {
  if (origin === undefined) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    Vary: 'Origin',
    'Access-Control-Expose-Headers': 'Mcp-Session-Id',
    ...(preflight ? {
      'Access-Control-Allow-Methods': 'POST, DELETE, OPTIONS',
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
      'Access-Control-Max-Age': '600',
    } : {}),
  };
}
