// The in-memory form of one file, what queries read: its lines grouped into
// blocks of about BLOCK_CHARS, each block its lines lowercased one by one
// (the documented line rule, docs/tools.md) and joined by "\n". The blocks of
// a file are not strings of their own but ranges of a few long strings, the
// pieces (most files have one: the whole file lowercased); a query scans a
// block through a slice of its piece, which V8 makes a view, not a copy. Per
// block the file keeps numbers only, all in one Int32Array: a string per block
// would cost ~24 bytes of header and array slot, and a typed array per file
// and purpose ~250 bytes (site-packages has 464k blocks in 11.5k files).
//
// Why blocks: a block is the unit the signatures (block-signatures.ts) filter.
// A block whose signature lacks one of the query's trigrams cannot contain a
// matching line (a match lies within one line, and a line lies within one
// block), so it is skipped without being scanned; for a query made of common
// trigrams, few blocks hold every one of them even when most files do.
import { ownString } from '../text.js';
import { CapitalReader, encodeCase } from './case-data.js';
import { mapSlice, type MapPiece, type PieceSource } from './text-map.js';

/**
 * Target size of a block (UTF-16 units); a block ends at the first line end past it.
 * 256 rather than 1 KB: with signatures tested 32 blocks per word, a smaller block
 * costs little to filter and cuts the text scanned for common queries (" self,":
 * 14.7 -> 4 MB over the stdlib).
 */
export const BLOCK_CHARS = 256;

/** caseOf(b) of a block whose original case is its lowercased text. */
export const SAME_CASE = -1;
/** caseOf(b) of a block whose original case is a string of its own (original(b)). */
export const OWN_CASE = -2;

export class SearchText {
  private constructor(
    /**
     * Runs of consecutive blocks joined by "\n". A new piece starts where the
     * blocks' width changes: a string holding one character past U+00FF takes
     * two bytes for every character, so such blocks are kept apart from the
     * file's one-byte text instead of doubling it. On a large tree a one-byte
     * piece may instead lie in the text map (text-map.ts; moved there by
     * memory.ts), read a run of blocks at a time as a latin1 string.
     */
    private readonly pieces: (string | MapPiece)[],
    /**
     * Per block, n = blockCount of them, at these offsets:
     * [0, n) the 0-based index of its first line;
     * [n, 2n] where it starts (n+1 entries: the last is the text's length + 1),
     *   counted over the pieces as if joined by "\n" (the blocks' lowercased text
     *   joined by "\n" all through);
     * [2n+1, 3n+1) its case (caseOf);
     * [3n+1, 3n+1+P) the first block of each of the P pieces;
     * then the case data of the all-ASCII blocks whose lowercasing changes
     *   something, from word caseOf(b): where their uppercase letters are
     *   (ASCII lowercases unit by unit, in place), as a byte per capital or a
     *   bit per unit, whichever is shorter (case-data.ts).
     */
    readonly layout: Int32Array,
    /** Original-case text of the blocks with caseOf(b) === OWN_CASE: they hold non-ASCII text that lowercasing changes (rare in code). */
    private readonly originals: Map<number, string> | null,
    /** Number of lines. */
    readonly lineCount: number,
    /** Number of blocks. */
    readonly blockCount: number,
  ) {}

  /** Builds from the file's lines (docs/tools.md, Evidence). */
  static fromLines(lines: readonly string[]): SearchText {
    const lower: string[] = [];
    const wide: boolean[] = [];
    const first: number[] = [];
    const cases: number[] = [];
    const caseWords: number[] = [];
    let originals: Map<number, string> | null = null;
    let i = 0;
    while (i < lines.length) {
      const start = i;
      let len = 0;
      while (i < lines.length && (i === start || len < BLOCK_CHARS)) len += lines[i++].length + 1;
      first.push(start);
      // A one-line block would be a view into the file's whole text (see ownString).
      const c = i - start === 1 ? ownString(lines[start]) : lines.slice(start, i).join('\n');
      const l = lowerJoin(c, lines, start, i);
      const b = lower.length;
      lower.push(l);
      // eslint-disable-next-line no-control-regex
      wide.push(/[^\x00-\xff]/.test(l));
      if (l === c) cases.push(SAME_CASE);
      // eslint-disable-next-line no-control-regex
      else if (!/[^\x00-\x7f]/.test(c)) {
        cases.push(caseWords.length);
        for (const w of encodeCase(c)) caseWords.push(w);
      } else {
        cases.push(OWN_CASE);
        (originals ??= new Map()).set(b, c);
      }
    }
    const n = lower.length;
    const pieces: string[] = [];
    const pieceFirst: number[] = [];
    for (let b = 0; b < n;) {
      let e = b + 1;
      while (e < n && wide[e] === wide[b]) e++;
      pieceFirst.push(b);
      // One block: its string as it is (owned: a join, a lowercasing or ownString made it).
      pieces.push(e - b === 1 ? lower[b] : lower.slice(b, e).join('\n'));
      b = e;
    }
    const bitsAt = 3 * n + 1 + pieceFirst.length;
    const layout = new Int32Array(bitsAt + caseWords.length);
    let at = 0;
    for (let b = 0; b < n; b++) {
      layout[b] = first[b];
      layout[n + b] = at;
      at += lower[b].length + 1;
      layout[2 * n + 1 + b] = cases[b] >= 0 ? bitsAt + cases[b] : cases[b];
    }
    layout[2 * n] = at;
    layout.set(pieceFirst, 3 * n + 1);
    layout.set(caseWords, bitsAt);
    // slice(): an array grown by push keeps room for 17; most files have one piece (1.5 MB on site-packages).
    return new SearchText(pieces.slice(), layout, originals, lines.length, n);
  }

  /** 0-based index of block b's first line. */
  firstLineOf(b: number): number { return this.layout[b]; }

  /** SAME_CASE, OWN_CASE, or the word of layout where block b's case data begins (case-data.ts). */
  caseOf(b: number): number { return this.layout[2 * this.blockCount + 1 + b]; }

  /** Original-case text of a block whose caseOf is OWN_CASE. */
  original(b: number): string { return this.originals!.get(b)!; }

  /** Block b's lowercased lines joined by "\n": a slice of its piece (a view, not a copy, past 12 characters). */
  block(b: number): string { return this.blockRange(b, b + 1); }

  /** Blocks b..e-1, which must be of one piece (runEnd), joined by "\n" as they are in it: one slice. */
  blockRange(b: number, e: number): string {
    const { layout } = this;
    const n = this.blockCount;
    const p = this.pieceOf(b);
    const base = layout[n + layout[3 * n + 1 + p]];
    const piece = this.pieces[p];
    const from = layout[n + b] - base, to = layout[n + e] - 1 - base;
    return typeof piece === 'string' ? piece.slice(from, to) : mapSlice(piece, from, to);
  }

  /** Block b's lowercased text out of `run`, the slice blockRange(first, …) returned for a run holding b: a view of it. */
  blockIn(run: string, first: number, b: number): string {
    const { layout } = this;
    const n = this.blockCount;
    const base = layout[n + first];
    return run.slice(layout[n + b] - base, layout[n + b + 1] - 1 - base);
  }

  /** Number of pieces (runs of blocks of one width). */
  get pieceCount(): number { return this.pieces.length; }

  /** Piece p when it can lie in a text map: a one-byte heap string or a map piece; null for a two-byte piece. */
  oneBytePiece(p: number): PieceSource | null {
    const piece = this.pieces[p];
    // eslint-disable-next-line no-control-regex
    return typeof piece !== 'string' ? piece : /[^\x00-\xff]/.test(piece) ? null : piece;
  }

  /** Piece p as it now lies (a heap string or a map piece), for the text map's bookkeeping. */
  pieceAt(p: number): string | MapPiece { return this.pieces[p]; }

  /** Piece p now lies in a text map: the same characters, one byte each (text-map.ts). */
  placePiece(p: number, piece: MapPiece): void {
    if (piece.length !== this.pieces[p].length) throw new Error('internal: a text map piece of another length');
    this.pieces[p] = piece;
  }

  /** Whether a piece lies in a text map. */
  get mapped(): boolean { return this.pieces.some((p) => typeof p !== 'string'); }

  /** The end of the run of blocks from b that lie in b's piece, at most `max` (> b). */
  runEnd(b: number, max: number): number {
    const p = this.pieceOf(b);
    return p + 1 < this.pieces.length ? Math.min(max, this.layout[3 * this.blockCount + 2 + p]) : max;
  }

  /** The piece holding block b: the last whose first block is <= b. */
  private pieceOf(b: number): number {
    const { layout, pieces } = this;
    const at = 3 * this.blockCount + 1;
    let p = 0;
    if (pieces.length > 1) {
      let hi = pieces.length - 1;
      while (p < hi) { const mid = (p + hi + 1) >> 1; if (layout[at + mid] <= b) p = mid; else hi = mid - 1; }
    }
    return p;
  }

  /** Original-case text of block b between offsets a and e (of its lowercased text, which has the same length unless caseOf(b) is OWN_CASE). */
  private canonSlice(b: number, text: string, a: number, e: number): string {
    const off = this.caseOf(b);
    if (off < 0) return text.slice(a, e);
    capitals.start(this.layout, off, text.length);
    let out = '';
    let run = a;
    for (capitals.seek(a); capitals.at < e; capitals.advance()) {
      const i = capitals.at;
      out += text.slice(run, i) + String.fromCharCode(text.charCodeAt(i) - 32);
      run = i + 1;
    }
    return out + text.slice(run, e);
  }

  /**
   * Lines start..end (1-based, inclusive) in original case, joined by "\n":
   * the file's text over those lines. A block holds its lines joined the same
   * way, so this is one slice per block, not one string per line. Reads no
   * further than maxChars + 1 characters (a caller that keeps maxChars can tell
   * there was more). Throws outside 1..lineCount.
   */
  textRange(start: number, end: number, maxChars = Infinity): string {
    if (!(start >= 1 && start <= end && end <= this.lineCount)) throw new Error(`internal: lines ${start}-${end} outside 1-${this.lineCount}`);
    const first = this.layout;
    const n = this.blockCount;
    // The block holding line `start`: the last whose first line is <= start-1.
    let lo = 0, hi = n - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (first[mid] <= start - 1) lo = mid; else hi = mid - 1; }
    let out = '';
    let line = start - 1; // 0-based: the next line to read
    for (let b = lo; ; b++) {
      // Line ends are found in the text that is sliced: an original-case string
      // of its own can differ in length from the lowercased one ("İ" lowercases
      // to two units); a block with case data cannot.
      const text = this.caseOf(b) === OWN_CASE ? this.original(b) : this.block(b);
      const next = b + 1 < n ? first[b + 1] : this.lineCount; // first line of the next block
      let a = 0;
      for (let l = first[b]; l < line; l++) a = text.indexOf('\n', a) + 1;
      const stop = Math.min(end, next); // this block gives lines line..stop-1
      let e = text.length;
      if (stop < next) {
        e = a;
        for (let l = line; l < stop; l++) e = text.indexOf('\n', e) + 1;
        e -= 1; // the "\n" that ends line stop-1
      }
      const sep = line === start - 1 ? '' : '\n';
      const room = maxChars + 1 - out.length - sep.length;
      out += sep + this.canonSlice(b, text, a, Math.min(e, a + Math.max(0, room)));
      line = stop;
      if (line >= end || out.length > maxChars) return out;
    }
  }
}

/** textRange's reader of case data (one at a time: textRange does not yield). */
const capitals = new CapitalReader();

/**
 * lines[a..b) lowercased one by one and joined by "\n". For pure-ASCII text
 * lowercasing the joined string is the same thing (ASCII maps unit by unit)
 * and much cheaper; otherwise lowercase line by line, as docs/tools.md says
 * (toLowerCase is context-sensitive for a few characters, e.g. final sigma).
 */
function lowerJoin(joined: string, lines: readonly string[], a: number, b: number): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(joined)) return joined.toLowerCase();
  const lower: string[] = [];
  for (let i = a; i < b; i++) lower.push(lines[i].toLowerCase());
  return lower.join('\n');
}

/**
 * A case-sensitive query, prepared once and then pointed at one block after
 * another (no closure or regex per block: a short query visits every block).
 * at() returns the string to scan, whose "\n" positions are the block's line
 * ends; find() then gives the next occurrence of the query in original case.
 */
export class ExactFinder {
  private readonly lower: string;
  /** Per query unit: 1 when it is an uppercase ASCII letter. */
  private readonly upper: Uint8Array;
  private readonly ascii: boolean;
  /**
   * No ASCII letter and nothing but ASCII: then a line holds the query exactly
   * when its lowercased form does (lowercasing maps those units to themselves,
   * and no other character lowercases to them; checked over every code point),
   * so the lowercased block is scanned as is. Line numbers come out right either
   * way: lowercasing never adds or drops a "\n".
   */
  private readonly caseless: boolean;
  /** The pointed block's capitals (candidates come in ascending order within a block). */
  private readonly capitals = new CapitalReader();
  /** Whether the query holds a capital. */
  private readonly anyUpper: boolean;
  private mode: 'indexOf' | 'bits' | 'none' = 'indexOf';
  private hayQuery = '';

  constructor(readonly q: string) {
    this.lower = q.toLowerCase();
    // eslint-disable-next-line no-control-regex
    this.ascii = !/[^\x00-\x7f]/.test(q);
    this.caseless = this.ascii && !/[A-Za-z]/.test(q);
    this.upper = Uint8Array.from(q, (ch) => (ch >= 'A' && ch <= 'Z' ? 1 : 0));
    this.anyUpper = this.upper.includes(1);
  }

  /**
   * Points the finder at block b of st; returns the string to scan. With
   * `run` (st.blockRange(first, …) of a run holding b), the block's text is
   * cut from it (a view) instead of sliced from its piece (a copy out of a
   * text map).
   */
  at(st: SearchText, b: number, run?: string, first = b): string {
    if (this.caseless) { this.mode = 'indexOf'; this.hayQuery = this.q; return lowered(st, b, run, first); }
    const off = st.caseOf(b);
    if (off === SAME_CASE) { this.mode = 'indexOf'; this.hayQuery = this.q; return lowered(st, b, run, first); }
    if (off === OWN_CASE) { this.mode = 'indexOf'; this.hayQuery = this.q; return st.original(b); }
    // An all-ASCII block: search its lowercased text, then check its capitals.
    if (!this.ascii) { this.mode = 'none'; return ''; } // holds no non-ASCII query
    this.mode = 'bits';
    this.hayQuery = this.lower;
    const hay = lowered(st, b, run, first);
    this.capitals.start(st.layout, off, hay.length);
    return hay;
  }

  /** Next position at or after `from` where the query occurs in original case, or -1. */
  readonly find = (hay: string, from: number): number => {
    if (this.mode === 'none') return -1;
    const ql = this.hayQuery;
    if (this.mode === 'indexOf') return hay.indexOf(ql, from);
    for (let pos = hay.indexOf(ql, from); pos >= 0; pos = hay.indexOf(ql, pos + 1)) {
      if (this.capitals.capitalsAre(pos, this.upper, this.anyUpper)) return pos;
    }
    return -1;
  };
}

/** Block b's lowercased text: cut from `run` (blocks from `first`) when given, else sliced from its piece. */
function lowered(st: SearchText, b: number, run: string | undefined, first: number): string {
  return run === undefined ? st.block(b) : st.blockIn(run, first, b);
}
