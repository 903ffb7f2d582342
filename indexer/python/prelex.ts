// The Python pre-lexer: text-to-text passes run before tree-sitter parses a
// file. Each rewrites the source without moving any row, so the extractor's
// line numbers hold for the original file: blankGroups and blankStatements
// drop text that cannot hold a definition, import or variable (a cheaper
// parse), joinBracketedLines repairs a bracketed line break tree-sitter's
// scanner misreads. The caller (extract.ts) parses the original text whenever
// a rewritten one does not parse cleanly. Every pass skips strings with the
// same skipString, so they agree on where strings are.

/**
 * Skips the string literal whose opening quote (' or ") is at `i`: single or
 * triple quoted, backslash escapes honoured (prefixes such as f or rb are
 * ordinary name characters before it). Returns the index just past the closing
 * quote, or, for a single-quoted string that a line end (\n or \r) cuts short,
 * the bitwise NOT (~) of that line end's index — always negative. One scanner
 * for every pre-pass below, so they agree on where strings are.
 */
function skipString(src: string, i: number): number {
  const n = src.length;
  const q = src.charCodeAt(i);
  const triple = src.charCodeAt(i + 1) === q && src.charCodeAt(i + 2) === q;
  i += triple ? 3 : 1;
  while (i < n) {
    const d = src.charCodeAt(i);
    if (d === 0x5c) { i += 2; continue; }
    if (d === q && (!triple || (src.charCodeAt(i + 1) === q && src.charCodeAt(i + 2) === q))) return i + (triple ? 3 : 1);
    if ((d === 0x0a || d === 0x0d) && !triple) return ~i;
    i++;
  }
  return ~n;
}

/**
 * tree-sitter-python's scanner decides "inside brackets" from whether a
 * closing bracket could come next, so a line break inside brackets right after
 * `.`, an operator, etc., followed by a less-indented line (`(bar.\n  baz)`,
 * valid Python) is read as a dedent and the rest of the body is lost. For a
 * file that parsed with errors, this returns the source with every line break
 * inside brackets made an explicit `\` continuation (comments there blanked to
 * spaces, as a continuation cannot follow one) — the same program, the same
 * rows — or null when no line break sits inside brackets. Strings are skipped
 * (a backslash always escapes the next character, raw strings included).
 */
export function joinBracketedLines(src: string): string | null {
  const out: string[] = [];
  let from = 0; // src[from..i) not yet copied to out
  let depth = 0;
  let changed = false;
  const n = src.length;
  let i = 0;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 0x22 || c === 0x27) { // " or '
      i = skipString(src, i);
      if (i < 0) i = ~i; // unterminated: let the parser report it
    } else if (c === 0x23) { // # comment: to the end of the line
      let j = i;
      while (j < n && src.charCodeAt(j) !== 0x0a && src.charCodeAt(j) !== 0x0d) j++;
      if (depth > 0) {
        out.push(src.slice(from, i), ' '.repeat(j - i));
        from = j;
      }
      i = j;
    } else if (c === 0x5c) { // an explicit continuation (or a stray backslash) stays as it is
      i += src.charCodeAt(i + 1) === 0x0d && src.charCodeAt(i + 2) === 0x0a ? 3 : 2;
    } else if (c === 0x0a || c === 0x0d) {
      if (depth > 0) {
        out.push(src.slice(from, i), '\\');
        from = i;
        changed = true;
      }
      i += c === 0x0d && src.charCodeAt(i + 1) === 0x0a ? 2 : 1;
    } else {
      if (c === 0x28 || c === 0x5b || c === 0x7b) depth++;
      else if ((c === 0x29 || c === 0x5d || c === 0x7d) && depth > 0) depth--;
      i++;
    }
  }
  if (!changed) return null;
  out.push(src.slice(from));
  return out.join('');
}

/** Is `src[i..]` an assignment operator (`=` but not `==`, or an augmented one such as `+=`, `//=`, `>>=`)? */
function assignsAt(src: string, i: number): boolean {
  let j = i;
  for (; j < i + 3; j++) {
    const d = src.charCodeAt(j);
    // Operator characters of the augmented forms: + - * / % @ & | ^ < >
    if (!(d === 0x2b || d === 0x2d || d === 0x2a || d === 0x2f || d === 0x25 || d === 0x40 || d === 0x26
      || d === 0x7c || d === 0x5e || d === 0x3c || d === 0x3e)) break;
  }
  return src.charCodeAt(j) === 0x3d && src.charCodeAt(j + 1) !== 0x3d;
}

/** Is the code unit part of a name (or a `.` of a dotted one)? Non-ASCII counts, to be safe. */
function nameChar(d: number): boolean {
  return (d >= 0x30 && d <= 0x39) || (d >= 0x41 && d <= 0x5a) || (d >= 0x61 && d <= 0x7a) || d === 0x5f || d === 0x2e || d >= 0x80;
}

/** Does the keyword `import` end at src[k] (inclusive), as a whole word? */
function importEndsAt(src: string, k: number): boolean {
  return k >= 5 && src.charCodeAt(k) === 0x74 && src.startsWith('import', k - 5) && (k === 5 || !nameChar(src.charCodeAt(k - 6)));
}

let spaces = ' '.repeat(4096);
/** `len` spaces. */
function blank(len: number): string {
  while (spaces.length < len) spaces += spaces;
  return spaces.slice(0, len);
}

/**
 * Most of tree-sitter's work on real code is expressions inside brackets —
 * call arguments, literals, parameter lists — none of which can hold a
 * definition, an import or a variable of the Python rules (docs/tools.md). This returns the source with the
 * inside of such bracket groups overwritten by spaces (line breaks kept, so
 * every row, column and offset is unchanged; a `[` group keeps one `0` so a
 * subscript stays valid), or null when nothing was blanked. Parsing it is
 * about a third cheaper on the stdlib. A group is kept whole when it may hold
 * something that counts: an assignment target (next comes `=`, an augmented
 * `+=`..., `,` or `:` — `(a, b) = ...`, `(x): int = 1`) or import names
 * (`from m import (...)`). Only outermost groups are blanked. The caller
 * parses the original instead whenever this version has a syntax error.
 */
export function blankGroups(src: string): string | null {
  const out: string[] = [];
  let from = 0; // src[from..) not yet copied to out
  let depth = 0;
  let open = -1; // index of the outermost open bracket
  let afterImport = false; // the outermost group opened right after the keyword `import`
  const n = src.length;
  let i = 0;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 0x22 || c === 0x27) { // " or ': the same string rules as joinBracketedLines
      i = skipString(src, i);
      if (i < 0) i = ~i;
    } else if (c === 0x23) { // # comment
      while (i < n && src.charCodeAt(i) !== 0x0a && src.charCodeAt(i) !== 0x0d) i++;
    } else if (c === 0x5c) {
      i += src.charCodeAt(i + 1) === 0x0d && src.charCodeAt(i + 2) === 0x0a ? 3 : 2;
    } else if (c === 0x28 || c === 0x5b || c === 0x7b) {
      if (depth++ === 0) {
        open = i;
        let k = i - 1;
        while (k >= 0 && (src.charCodeAt(k) === 0x20 || src.charCodeAt(k) === 0x09)) k--;
        afterImport = importEndsAt(src, k);
      }
      i++;
    } else if ((c === 0x29 || c === 0x5d || c === 0x7d) && depth > 0) {
      if (--depth === 0 && i > open + 1 && !afterImport) {
        // What follows the group on its logical line (spaces and `\` continuations skipped).
        let j = i + 1;
        for (;;) {
          const d = src.charCodeAt(j);
          if (d === 0x20 || d === 0x09 || d === 0x0c) j++;
          else if (d === 0x5c && (src.charCodeAt(j + 1) === 0x0a || src.charCodeAt(j + 1) === 0x0d)) j += src.charCodeAt(j + 2) === 0x0a ? 3 : 2;
          else break;
        }
        const next = src.charCodeAt(j);
        if (!(next === 0x2c || next === 0x3a || assignsAt(src, j))) {
          out.push(src.slice(from, open + 1));
          // Spaces up to each line break, the line breaks themselves kept.
          let at = open + 1;
          let zero = c === 0x5d;
          while (at < i) {
            let e = at;
            while (e < i) { const d = src.charCodeAt(e); if (d === 0x0a || d === 0x0d) break; e++; }
            if (e > at) {
              if (zero) { out.push('0'); at++; zero = false; }
              if (e > at) out.push(blank(e - at));
            }
            let f = e;
            while (f < i) { const d = src.charCodeAt(f); if (d !== 0x0a && d !== 0x0d) break; f++; }
            if (f > e) out.push(src.slice(e, f));
            at = f;
          }
          from = i;
        }
      }
      i++;
    } else {
      i++;
    }
  }
  if (out.length === 0) return null;
  out.push(src.slice(from));
  return out.join('');
}

// First words of lines that are kept by blankStatements whatever follows them:
// compound-statement headers (soft keywords `match`/`case` included), imports.
const KEEP_WORDS = new Set([
  'def', 'class', 'async', 'if', 'elif', 'else', 'for', 'while', 'try', 'except', 'finally', 'with',
  'match', 'case', 'import', 'from',
]);

/**
 * After blankGroups, the next largest share of tree-sitter's parse is simple
 * statements that cannot hold anything the Python rules count, and whitespace at the start
 * of lines (its scanner reads indentation for every line, blank ones too, so
 * overwriting a statement with spaces saves little). This returns the source
 * with such statement lines, and comment-only lines, DELETED except for their
 * line breaks — so every row is unchanged, while columns and offsets after a
 * deleted line shift (the extractor uses rows only, and slices names out of
 * the text it parsed) — or null when nothing was removed or the layout is not
 * plain enough to be sure (tab or form-feed indentation, an unterminated
 * string, unbalanced brackets, an indentation the block structure does not
 * explain). A statement is removed only when it is a simple statement (first
 * word not a compound keyword, `import`, `from` or a decorator `@`; no `;`)
 * that is NOT the last statement of its block — the next logical line has the
 * same indentation — because a body's last statement gives its definition's
 * end line. In function bodies every such statement goes (assignments there
 * are not variables by the Python rules); in module and class bodies only lines with no `=`
 * and no `:` outside brackets and strings (so no assignment or annotated
 * target is ever lost). The caller parses the original whenever the result
 * has a syntax error.
 */
export function blankStatements(src: string): string | null {
  const n = src.length;
  // Logical lines: where the physical line starts, where the statement starts,
  // where its last line break is (exclusive), indentation, first word, flags.
  const lineStarts: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const indents: number[] = [];
  const words: string[] = [];
  // 1: `=` or `:` at depth 0, 2: `;` at depth 0, 4: ends with `:`, 8: `async def`, 16: a comment-only line
  const flags: number[] = [];
  let i = 0;
  while (i < n) {
    const lineStart = i;
    let col = 0;
    let tabbed = false;
    for (;;) {
      const c = src.charCodeAt(i);
      if (c === 0x20) { col++; i++; } else if (c === 0x09 || c === 0x0c) { tabbed = true; i++; } else break;
    }
    if (i >= n) break;
    let c = src.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) { i++; continue; } // blank line
    if (c === 0x23) { // a comment-only line: not a statement, removed whatever its indentation
      while (i < n && src.charCodeAt(i) !== 0x0a && src.charCodeAt(i) !== 0x0d) i++;
      lineStarts.push(lineStart); starts.push(lineStart); ends.push(i); indents.push(-1); words.push(''); flags.push(16);
      continue;
    }
    // Tabs and form feeds in indentation have their own column rules; not worth the risk.
    if (tabbed) return null;
    const start = i;
    let w = i;
    while (w < n && nameChar(src.charCodeAt(w)) && src.charCodeAt(w) !== 0x2e) w++;
    const word = src.slice(start, w);
    let f = 0;
    if (word === 'async') {
      let k = w;
      while (src.charCodeAt(k) === 0x20) k++;
      if (src.startsWith('def', k) && !nameChar(src.charCodeAt(k + 3))) f |= 8;
    }
    let depth = 0;
    let last = 0; // last code unit outside strings, comments and spaces
    while (i < n) {
      c = src.charCodeAt(i);
      if (c === 0x22 || c === 0x27) { // the same string rules as blankGroups
        i = skipString(src, i);
        if (i < 0) return null; // broken source: leave it to the parser as it is
        last = c;
      } else if (c === 0x23) {
        while (i < n && src.charCodeAt(i) !== 0x0a && src.charCodeAt(i) !== 0x0d) i++;
      } else if (c === 0x5c) {
        i += src.charCodeAt(i + 1) === 0x0d && src.charCodeAt(i + 2) === 0x0a ? 3 : 2;
      } else if (c === 0x0a || c === 0x0d) {
        if (depth === 0) break;
        i++;
      } else {
        if (c === 0x28 || c === 0x5b || c === 0x7b) depth++;
        else if (c === 0x29 || c === 0x5d || c === 0x7d) { if (--depth < 0) return null; }
        else if (depth === 0) {
          if (c === 0x3d || c === 0x3a) f |= 1;
          else if (c === 0x3b) f |= 2;
        }
        if (c !== 0x20 && c !== 0x09 && c !== 0x0c) last = c;
        i++;
      }
    }
    if (depth !== 0) return null;
    if (last === 0x3a) f |= 4;
    lineStarts.push(lineStart); starts.push(start); ends.push(i); indents.push(col); words.push(word); flags.push(f);
  }

  const out: string[] = [];
  let from = 0;
  /** Drops [lineStarts[k], ends[k]) but its line breaks. */
  const remove = (k: number): void => {
    out.push(src.slice(from, lineStarts[k]));
    const e = ends[k];
    for (let at = starts[k]; at < e; at++) {
      const d = src.charCodeAt(at);
      if (d === 0x0a || d === 0x0d) {
        let g = at + 1;
        while (g < e && (src.charCodeAt(g) === 0x0a || src.charCodeAt(g) === 0x0d)) g++;
        out.push(src.slice(at, g));
        at = g - 1;
      }
    }
    from = e;
  };
  // Open blocks: the indentation of their statements, and whether they are function bodies.
  const blockIndent: number[] = [0];
  const blockFn: boolean[] = [false];
  let opened: boolean | null = null; // the previous statement was a header: is its block a function body?
  const count = starts.length;
  let next = 0; // the statement after k (comment-only lines skipped)
  for (let k = 0; k < count; k++) {
    const f = flags[k];
    if (f & 16) { remove(k); continue; }
    const ind = indents[k];
    let top = blockIndent.length - 1;
    if (opened !== null) {
      if (ind > blockIndent[top]) { blockIndent.push(ind); blockFn.push(opened); top++; }
      opened = null;
    }
    while (ind < blockIndent[top]) { blockIndent.pop(); blockFn.pop(); top--; }
    if (ind !== blockIndent[top]) return null;
    const word = words[k];
    if (f & 4) { // a header: `def`/`async def` open a function body, `class` a class body, others inherit
      opened = word === 'def' || (f & 8) !== 0 ? true : word === 'class' ? false : blockFn[top];
      continue;
    }
    if (KEEP_WORDS.has(word) || src.charCodeAt(starts[k]) === 0x40 /* @ */ || (f & 2)) continue;
    if (!blockFn[top] && (f & 1)) continue;
    if (next <= k) { next = k + 1; while (next < count && (flags[next] & 16)) next++; }
    if (next >= count || indents[next] !== ind) continue; // the block's last statement
    remove(k);
  }
  if (out.length === 0) return null;
  out.push(src.slice(from));
  return out.join('');
}
