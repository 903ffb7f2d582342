// The one order of paths in the whole index: the file table keeps its files in
// it, the builder and the tools sort by it, and every answer is listed in it
// (docs/tools.md: "sorted by path"). Kept apart so each of them uses this one
// comparison rather than a look-alike.

/**
 * Unicode code point order, which is also UTF-8 byte order (what git, ripgrep
 * and Python's sorted() give). Plain JS comparison orders UTF-16 code units,
 * which differs only between a surrogate (an astral character such as an
 * emoji) and U+E000..U+FFFF; that case is fixed up.
 */
export function cmp(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      const xs = x <= 0xdfff;
      const ys = y <= 0xdfff;
      if (xs !== ys) return xs ? 1 : -1; // a surrogate starts a code point above U+FFFF
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}
