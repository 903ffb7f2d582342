// Literal text inside a RegExp: names and paths from the repository are
// matched as written, never as patterns.

/** `s` with every character a RegExp gives a meaning escaped. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
