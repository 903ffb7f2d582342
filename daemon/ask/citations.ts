// Checks the answer against the evidence: every reference to a path the
// answer makes (cite-forms.ts: `path:line`, "lines 10-14 of path", a path
// alone, ...) is backed only if each cited line (for a path alone, some line)
// lies inside evidence the model was shown for this question (same path). "Shown"
// means the text the model actually received: a truncated item spans its whole
// definition in start_line..end_line, but its snippet holds only a prefix, and
// lines past that prefix were never seen.
import { ToolError } from '../../indexer/errors.js';
import type { Evidence } from '../../indexer/evidence.js';
import type { CitationCheck } from '../../protocol/ask-events.js';
import { findPathRefs, onlyPathEnding, type CiteRef, type PathContext } from './cite-forms.js';

/** Every distinct reference to a path in the answer (cite-forms.ts), with or without lines. */
export function parseCitations(answer: string, knownPaths: readonly string[] = [], where: Omit<PathContext, 'knownPaths'> = {}): CiteRef[] {
  return findPathRefs(answer, { knownPaths, ...where });
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

/**
 * `evidence` must be the items as the model was shown them (the envelope's
 * `shown`, snippets as sent); `where.root`, the repository's absolute root,
 * takes an absolute path under it to the repository path. An unbacked
 * citation's reason is `lines_not_shown` or `file_not_shown`; settleCitations
 * also tells the files that do not exist at all.
 */
export function checkCitations(answer: string, evidence: readonly Evidence[], where: Omit<PathContext, 'knownPaths'> = {}): CitationCheck[] {
  const byPath = new Map<string, Array<[number, number]>>();
  for (const e of evidence) {
    const span = seenSpan(e);
    if (span[0] > span[1]) continue;
    const list = byPath.get(e.path) ?? [];
    list.push(span);
    byPath.set(e.path, list);
  }
  return parseCitations(answer, [...byPath.keys()], where).map((c): CitationCheck => {
    const spans = byPath.get(c.path);
    if (!spans) return { ...c, backed: false, reason: 'file_not_shown' };
    if (c.start_line === undefined || c.end_line === undefined) return { ...c, backed: true };
    const { start_line, end_line } = c;
    return covered(spans.filter(([, e]) => e >= start_line), start_line, end_line) ? { ...c, backed: true } : { ...c, backed: false, reason: 'lines_not_shown' };
  });
}

/** At most this many files are looked up by markMissing (an answer may name thousands). */
const MISSING_LOOKUPS = 100;

/**
 * The answer's citations checked as the daemon does, where the index can say
 * which files exist (`exists`, indexedVia: not a tool call of the question's,
 * neither audited nor counted). A path the model never saw that is no file of the repository is
 * taken to mean the one evidence path it ends (`utils.py:252` for
 * `src/click/utils.py`), when exactly one does; failing that it is
 * `no_such_file`.
 */
export async function settleCitations(
  answer: string, evidence: readonly Evidence[], root: string | undefined, exists: ((path: string) => Promise<boolean>) | undefined,
): Promise<CitationCheck[]> {
  const where = root ? { root } : {};
  const first = checkCitations(answer, evidence, where);
  if (!exists) return first;
  const missing = new Set<string>();
  const asked = new Set<string>();
  for (const c of first) {
    if (c.reason !== 'file_not_shown' || asked.has(c.path) || asked.size >= MISSING_LOOKUPS) continue;
    asked.add(c.path);
    if (c.path.startsWith('/') || !(await exists(c.path))) missing.add(c.path);
  }
  const shownPaths = [...new Set(evidence.map((e) => e.path))];
  const aliases = new Map<string, string>();
  for (const p of missing) {
    const meant = onlyPathEnding(p, shownPaths);
    if (meant) aliases.set(p, meant);
  }
  const checked = aliases.size ? checkCitations(answer, evidence, { ...where, aliases }) : first;
  return checked.map((c) => (c.reason === 'file_not_shown' && missing.has(c.path) ? { ...c, reason: 'no_such_file' } : c));
}

/** Words saying the evidence did not answer (docs/ask.md, Citations): an answer that says so may cite nothing. */
const NOTHING_FOUND = /\b(?:no (?:evidence|results?|matches|definitions?|such)|not (?:found|defined|in the (?:index|repository|evidence))|(?:could|can|did)(?: ?no|n['’])t (?:find|locate|determine|answer|see)|unable to (?:find|locate|determine)|found (?:nothing|no)|does(?: ?no|n['’])t (?:exist|appear|answer)|nothing (?:matched|was found))/i;

/**
 * Code the answer names: a backticked span, or an identifier only code has —
 * snake_case, UPPER_CASE, camelCase or InnerCaps, a dotted `a.b`, a call `f()`.
 */
const CODE_TOKEN = /`[^`\n]+`|\b[A-Za-z]\w*_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b|\b[A-Za-z_]\w*\.[A-Za-z_]\w*\b|\b[A-Za-z_]\w*\(\)/;

/**
 * An answer that states facts about the code and cites nothing, while tools
 * ran: it names code (CODE_TOKEN), refers to no path at all, and does not say
 * that nothing was found. It is shown as "cites no evidence" and exits 5
 * (docs/ask.md).
 */
export function citesNoEvidence(answer: string, citations: readonly CitationCheck[], toolsRan: boolean): boolean {
  if (!toolsRan || citations.length > 0) return false;
  const text = answer.trim();
  return text !== '' && CODE_TOKEN.test(text) && !NOTHING_FOUND.test(text);
}

/**
 * Whether a repository path is a file of the index, asked of `runTool` (the
 * index's own, not the question's): what read_evidence refuses as not there,
 * or never to be read, is not.
 */
export function indexedVia(runTool: (name: unknown, args: unknown) => unknown): (path: string) => Promise<boolean> {
  return async (path) => {
    try {
      await runTool('read_evidence', { path, start_line: 1, end_line: 1 });
      return true;
    } catch (err) {
      return !(err instanceof ToolError && (err.code === 'not_indexed' || err.code === 'path_denied' || err.code === 'secret_denied'));
    }
  };
}
