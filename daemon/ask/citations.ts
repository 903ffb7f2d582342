// Checks the answer against the evidence: every `path:line` or
// `path:start-end` the answer cites is backed only if each cited line lies
// inside evidence the model was shown for this question (same path). "Shown"
// means the text the model actually received: a truncated item spans its whole
// definition in start_line..end_line, but its snippet holds only a prefix, and
// lines past that prefix were never seen.
import type { Evidence } from '../../indexer/evidence.js';
import type { CitationCheck } from '../../protocol/ask-events.js';

// A path is either something with a folder (a/b, a/b.py) or a file name with an
// alphabetic extension (setup.py), so "127.0.0.1:8080" and "12:30" are not
// citations. Accepts :12, :12-20, :L12, :L12-L20 and an en dash.
const CITE_RE = /(?<![\w./-])((?:\.\/)?(?:[\w.-]+\/)+[\w.-]+|[\w-][\w.-]*\.[A-Za-z][\w]*):L?(\d+)(?:\s?[-–]\s?L?(\d+))?(?![\w])/g;

export function parseCitations(answer: string): Array<{ cite: string; path: string; start_line: number; end_line: number }> {
  const seen = new Set<string>();
  const out: Array<{ cite: string; path: string; start_line: number; end_line: number }> = [];
  for (const m of answer.matchAll(CITE_RE)) {
    const path = m[1].replace(/^\.\//, '').replace(/[.]+$/, '');
    const a = Number(m[2]);
    const b = m[3] !== undefined ? Number(m[3]) : a;
    if (!(a >= 1)) continue;
    const start_line = Math.min(a, b), end_line = Math.max(a, b);
    const key = `${path}:${start_line}-${end_line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ cite: m[0], path, start_line, end_line });
  }
  return out;
}

/** True when lines start..end are all covered by the union of the spans. */
function covered(spans: Array<[number, number]>, start: number, end: number): boolean {
  let reach = start - 1; // highest line proven covered so far, contiguous from `start`
  for (const [s, e] of [...spans].sort((x, y) => x[0] - y[0])) {
    if (s > reach + 1) break;
    if (e > reach) reach = e;
    if (reach >= end) return true;
  }
  return reach >= end;
}

/**
 * The lines of one item that its snippet actually shows, as [first, last]
 * (first > last when none). A whole item shows its span. A truncated one shows
 * the lines present in its prefix: each "\n" completes one, and the cut line
 * after the last "\n" counts as seen when at least one of its characters made it
 * (a prefix ending right after "\n" shows nothing of the next line).
 */
export function seenSpan(e: Evidence): [number, number] {
  if (!e.truncated) return [e.start_line, e.end_line];
  const pieces = e.snippet.split('\n');
  if (pieces.at(-1) === '') pieces.pop();
  let count: number;
  if (e.kind === 'diff') {
    // A hunk's text is its "@@" header then lines of both sides; only context
    // (" " or, with diff.suppressBlankEmpty, empty) and "+" lines are new-file lines.
    count = pieces.slice(1).filter((l) => l === '' || l[0] === ' ' || l[0] === '+').length;
  } else {
    count = pieces.length;
  }
  return [e.start_line, Math.min(e.end_line, e.start_line + count - 1)];
}

/** `evidence` must be the items as the model was shown them (the envelope's `shown`, snippets as sent). */
export function checkCitations(answer: string, evidence: readonly Evidence[]): CitationCheck[] {
  const byPath = new Map<string, Array<[number, number]>>();
  for (const e of evidence) {
    const span = seenSpan(e);
    if (span[0] > span[1]) continue;
    const list = byPath.get(e.path) ?? [];
    list.push(span);
    byPath.set(e.path, list);
  }
  return parseCitations(answer).map((c) => ({
    ...c,
    backed: covered((byPath.get(c.path) ?? []).filter(([, e]) => e >= c.start_line), c.start_line, c.end_line),
  }));
}
