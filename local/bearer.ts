// Bearer tokens, the one way a local program proves it may talk to an evidex
// server: the daemon's WebSocket (daemon/token.ts makes a fresh one per start)
// and `evidex mcp --http` (client/mcp/http-state.ts keeps one across starts).
// A token is 256 random bits in hex; it is checked in constant time, so a
// caller that may retry at will learns nothing from how long a refusal took.
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { randomBytes, timingSafeEqual } = process.getBuiltinModule('node:crypto');

/** A fresh token: 32 random bytes as 64 hex digits. */
export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** True for text that has the shape newToken gives (a token file not tampered with). */
export function isToken(v: unknown): v is string {
  return typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
}

/** Constant-time comparison of a presented token with the expected one. */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  // timingSafeEqual needs equal lengths; compare against itself to spend the same time, then fail.
  if (a.length !== b.length) { timingSafeEqual(b, b); return false; }
  return timingSafeEqual(a, b);
}

/** The token an `Authorization: Bearer TOKEN` header presents (the scheme's case ignored, as HTTP says), or null. */
export function bearerOf(authorization: string | undefined): string | null {
  const m = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return m ? m[1] : null;
}
