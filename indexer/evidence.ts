// The one output shape of every tool (docs/tools.md, Evidence). Build items only through
// makeEvidence so the snippet invariant — snippet equals lines start..end of the
// file as indexed — holds by construction.
import { SNIPPET_MAX_CHARS } from './query/limits.js';

export const EVIDENCE_KINDS = [
  'path_match', 'content_match', 'class', 'function', 'method', 'variable', 'interface', 'type', 'enum', 'namespace',
  'import', 'source', 'diff',
] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export interface Evidence {
  path: string;
  start_line: number;
  end_line: number;
  kind: EvidenceKind;
  name: string;
  snippet: string;
  truncated?: true;
  /**
   * search_code, on a line cut before its first match ends: the part of the
   * line around that match, from character `column` (1-based, in UTF-16 code
   * units as the cut counts), so the match can be seen.
   */
  excerpt?: { column: number; text: string };
  /** find_importers with via_reexports: the re-exporting files between the statement and the module, nearest first. */
  via?: string[];
  /**
   * read_evidence, on a snippet cut at 4,000 characters: the first line the
   * snippet does not hold whole, where the next read_evidence call goes on.
   */
  next_start_line?: number;
}


/** Cuts text to SNIPPET_MAX_CHARS without splitting a UTF-16 surrogate pair. */
export function capSnippet(text: string): { snippet: string; truncated?: true } {
  if (text.length <= SNIPPET_MAX_CHARS) return { snippet: text };
  let end = SNIPPET_MAX_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // keep the pair whole: drop its first half
  return { snippet: text.slice(0, end), truncated: true };
}

/**
 * One Evidence item over `lines` (the file split by splitLines), lines
 * start..end 1-based inclusive. Throws on an out-of-range span: that is a bug in
 * the caller, never something to clamp silently.
 */
export function makeEvidence(
  path: string, lines: readonly string[], start: number, end: number, kind: EvidenceKind, name: string,
): Evidence {
  if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 1 && start <= end && end <= lines.length)) {
    throw new Error(`internal: evidence span ${start}-${end} outside ${path} (${lines.length} lines)`);
  }
  return itemOver(path, start, end, kind, name, lines.slice(start - 1, end).join('\n'));
}

/**
 * makeEvidence for a span whose text comes from `readText(start, end,
 * maxChars)`: lines start..end joined by "\n", of which only the first
 * maxChars + 1 characters must be read, so a 3,000-line class costs what its
 * first 4,000 characters cost. The caller guarantees 1 <= start <= end <= the
 * file's line count.
 */
export function makeEvidenceLazy(
  path: string, start: number, end: number, kind: EvidenceKind, name: string,
  readText: (start: number, end: number, maxChars: number) => string,
): Evidence {
  return itemOver(path, start, end, kind, name, readText(start, end, SNIPPET_MAX_CHARS));
}

/** The item over lines start..end whose text (or at least its first SNIPPET_MAX_CHARS + 1 characters) is `text`. */
function itemOver(path: string, start: number, end: number, kind: EvidenceKind, name: string, text: string): Evidence {
  const { snippet, truncated } = capSnippet(text);
  const item: Evidence = { path, start_line: start, end_line: end, kind, name, snippet };
  if (truncated) item.truncated = true;
  return item;
}

/** Characters of an excerpt on each side of the match it shows. */
const EXCERPT_SIDE_CHARS = 120;

/**
 * `item` (one line of a file, its `snippet` cut) with the excerpt that shows
 * the match at `at` (length `len`) of that whole `line`; unchanged when the
 * snippet holds the match. The excerpt's ends never split a surrogate pair.
 */
export function withExcerpt(item: Evidence, line: string, at: number, len: number): Evidence {
  if (!item.truncated || at < 0 || at + len <= item.snippet.length) return item;
  let from = Math.max(0, at - EXCERPT_SIDE_CHARS);
  let to = Math.min(line.length, at + len + EXCERPT_SIDE_CHARS);
  if (isLowSurrogate(line.charCodeAt(from))) from--;
  if (isLowSurrogate(line.charCodeAt(to))) to++;
  return { ...item, excerpt: { column: from + 1, text: line.slice(from, to) } };
}

/**
 * `item` (read_evidence's answer) with `next_start_line` when its snippet was
 * cut after at least its first whole line: the line the cut fell in (or the
 * one after, when the cut fell at its end), so a reader goes on there instead
 * of past end_line. A cut inside the first line has nowhere to go on.
 */
export function withNextStart(item: Evidence): Evidence {
  if (!item.truncated) return item;
  const whole = item.snippet.split('\n').length - 1;
  return whole > 0 ? { ...item, next_start_line: item.start_line + whole } : item;
}

const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;
