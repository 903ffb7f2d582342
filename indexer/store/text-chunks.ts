// How a file's text is cut into the `text` table's rows (FORMAT.md): whole
// lines, a few KB each, so a search that needs one block of a file reads (and
// lmdb copies out of its map) that block's chunk, not the whole file.
//
// The cut is made in the file's bytes, right after a "\n" byte. In UTF-8 that
// byte never occurs inside a multi-byte sequence, so decoding each chunk
// alone gives the same characters as decoding the whole file (an invalid
// sequence before the cut becomes U+FFFD either way), and splitting each
// chunk into lines gives the file's lines (text.ts: lines end at "\n", a
// trailing "\r" is dropped, a final "\n" ends the last line).
import { decodeText, splitLines } from '../text.js';

/**
 * A chunk ends at the first "\n" at or past this many bytes from its start (or
 * at the end of the file). 4 KB: sixteen 256-character search blocks; a
 * chunk this size LZ4-compresses to about half, which fits a 4 KB LMDB page
 * alongside others rather than taking overflow pages of its own.
 */
export const CHUNK_BYTES = 4096;

/** Where the file's chunks end: byte offsets, ascending, the last one bytes.length (one chunk for an empty file). */
export function chunkEnds(bytes: Uint8Array, chunkBytes = CHUNK_BYTES): number[] {
  const ends: number[] = [];
  let start = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf(10, start + chunkBytes - 1);
    const end = nl < 0 ? bytes.length : nl + 1;
    ends.push(end);
    start = end;
  }
  if (ends.length === 0) ends.push(0);
  return ends;
}

/**
 * A chunk's bytes as its lines joined by "\n" (no "\r" before a line end, no
 * final "\n"): the form the search blocks and snippets are cut from.
 */
export function chunkLinesText(bytes: Uint8Array): string {
  const text = decodeText(bytes);
  if (text.indexOf('\r') < 0) return text.length > 0 && text.charCodeAt(text.length - 1) === 10 ? text.slice(0, -1) : text;
  return splitLines(text).join('\n');
}
