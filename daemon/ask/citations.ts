// Checks the answer against the evidence: every `path:line` or
// `path:start-end` the answer cites is backed only if each cited line lies
// inside evidence the model was shown for this question (same path).
import type { Evidence } from '../../indexer/evidence.js';
import type { CitationCheck } from './events.js';

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

export function checkCitations(answer: string, evidence: readonly Evidence[]): CitationCheck[] {
  const byPath = new Map<string, Array<[number, number]>>();
  for (const e of evidence) {
    const list = byPath.get(e.path) ?? [];
    list.push([e.start_line, e.end_line]);
    byPath.set(e.path, list);
  }
  return parseCitations(answer).map((c) => ({
    ...c,
    backed: covered((byPath.get(c.path) ?? []).filter(([, e]) => e >= c.start_line), c.start_line, c.end_line),
  }));
}
