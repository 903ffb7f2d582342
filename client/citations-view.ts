// The end of an answer as a person reads it on stderr (docs/ask.md): each
// citation checked, with the first line it points at beside it, and the
// evidence — listed when short, else counted (`evidex ask --evidence` or
// chat's /evidence list it), so on a 50-row terminal the answer stays on
// screen above. Every path and line of text passes local/human.ts's rule.
import type { Evidence } from '../indexer/evidence.js';
import { human, join, paint, path, type Shown } from '../local/human.js';
import type { AskResult, CitationCheck } from '../protocol/ask-events.js';
import { lineSpan } from './line-span.js';

/** Past this many citations, the rest are counted (--evidence lists them all). */
export const CITATIONS_SHOWN = 12;
/** Past this many evidence items, the list is a count. */
export const EVIDENCE_SHOWN = 6;
/** A cited line is cut to this many characters beside its citation. */
const LINE_MAX = 100;

export interface SummaryOptions {
  /** List every citation and every evidence item (`evidex ask --evidence`). */
  all?: boolean;
  /** How to see the whole list where it is cut, e.g. "evidex ask --evidence lists them" or "/evidence lists them". */
  listHint?: string;
  /** A root-relative path as printed here (the command's Place.shown: from the current folder); default as is. */
  shown?: (rootPath: string) => string;
}

const oneLine = (s: string, max: number): string => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

function spanOf(e: { start_line?: number; end_line?: number }): string {
  if (e.start_line === undefined || e.end_line === undefined) return '';
  return `:${lineSpan({ start_line: e.start_line, end_line: e.end_line })}`;
}

/**
 * The text of `line` of `file` as the evidence shows it (the first item
 * holding it; a diff hunk's text is not the file's), or null.
 */
export function evidenceLine(evidence: readonly Evidence[], file: string, line: number): string | null {
  for (const e of evidence) {
    if (e.path !== file || e.kind === 'diff' || line < e.start_line || line > e.end_line) continue;
    const lines = e.snippet.split('\n');
    const t = lines[line - e.start_line];
    if (t !== undefined) return t;
  }
  return null;
}

/** Why a citation is not backed, in words (a daemon too old to say is taken as the file not shown). */
function unbackedWhy(c: CitationCheck): string {
  switch (c.reason) {
    case 'no_such_file':
      if (c.path.startsWith('/')) return 'a path outside the repository';
      return c.path.includes('/') ? 'no such file in the repository, or one evidex does not index' : 'no such file in the repository, or one evidex does not index: name the path from the repository\'s root';
    default: return c.start_line === undefined ? 'named, but not in the evidence gathered for this question' : 'not in the evidence gathered for this question';
  }
}

function citationLine(c: CitationCheck, evidence: readonly Evidence[], shown: (rootPath: string) => string): Shown {
  const where = human`${path(shown(c.path))}${spanOf(c)}`;
  if (!c.backed) return human`  ${paint('31', '✘')} ${where}  (${unbackedWhy(c)})`;
  if (c.start_line === undefined) return human`  ${paint('32', '✔')} ${where}  (named without a line)`;
  const t = evidenceLine(evidence, c.path, c.start_line);
  return t === null ? human`  ${paint('32', '✔')} ${where}` : human`  ${paint('32', '✔')} ${where}  ${paint('2', oneLine(t, LINE_MAX))}`;
}

/** The citation check's lines: a count, then one line per citation (cut at CITATIONS_SHOWN unless `all`). */
export function citationLines(r: AskResult, opts: SummaryOptions = {}): Shown[] {
  if (r.uncited) {
    return [paint('31', human`\ncites no evidence: the answer states facts about the code but cites no path, though tools ran (exit 5)`)];
  }
  if (r.citations.length === 0) {
    return r.stopped === 'answered' && r.answer.trim() ? [human`\ncitations: none (the answer cites no path)`] : [];
  }
  const backed = r.citations.filter((c) => c.backed).length;
  const out = [human`\ncitations: ${backed} of ${r.citations.length} backed by the evidence`];
  const shown = opts.all ? r.citations : r.citations.slice(0, CITATIONS_SHOWN);
  for (const c of shown) out.push(citationLine(c, r.evidence, opts.shown ?? ((p) => p)));
  const rest = r.citations.length - shown.length;
  if (rest > 0) out.push(human`  … ${rest} more${opts.listHint ? human` (${opts.listHint})` : ''}`);
  return out;
}

/** The evidence: its list when short (or `all`), else one line with its count. */
export function evidenceLines(r: AskResult, list: (items: readonly Evidence[]) => Shown, opts: SummaryOptions = {}): Shown[] {
  const n = r.evidence.length;
  if (n === 0) return [];
  if (opts.all || n <= EVIDENCE_SHOWN) return [human`\nevidence (${n}):`, list(r.evidence)];
  return [human`\nevidence: ${n} items${opts.listHint ? human` (${opts.listHint})` : ''}`];
}

/** Both, as one block. */
export function summaryTail(r: AskResult, list: (items: readonly Evidence[]) => Shown, opts: SummaryOptions = {}): Shown {
  return join([...citationLines(r, opts), ...evidenceLines(r, list, opts)]);
}
