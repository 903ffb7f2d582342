// Where an answer refers to a repository path, in the forms real models
// write (docs/ask.md, Citations):
//
//   src/app.py:12   src/app.py:12-14   src/app.py:L12-L14   src/app.py#L12
//   src/app.py at line 12   src/app.py (line 12)   src/app.py, lines 10–14
//   lines 10–14 of src/app.py   line 12 in `src/app.py`
//   `src/app.py`   src/app.py          (a path alone: no line)
//
// A path is found two ways: every path of the evidence the model was shown,
// wherever it occurs (so a name with spaces, non-ASCII letters or control
// characters is still found), and anything shaped like a path: a name with a
// folder (`a/b.py`) or a file name with an alphabetic extension (`setup.py`).
// A path without a line counts only when it is an evidence path or ends in an
// extension of source or text files, so `and/or`, `e.g.`, `v1.2` and
// `127.0.0.1` are not paths; URLs are left out whole. A Markdown link
// `[utils.py](src/utils.py#L3)` is one reference: its target when that names
// lines, else its text.
//
// A path as written is then taken to the repository path it means: an
// absolute path under the root is made relative to it, and a written path
// the caller has an alias for (citations.ts: a file name such as `utils.py`
// that is no file of the repository but ends one evidence path) is that path.

/** How a path as written is taken to a repository path. */
export interface PathContext {
  /** Paths of the evidence the model was shown. */
  knownPaths?: readonly string[];
  /** The repository's root, absolute: an absolute path under it is made relative. */
  root?: string;
  /** Written paths taken to mean another: `utils.py` → `src/click/utils.py`. */
  aliases?: ReadonlyMap<string, string>;
}

/** One reference to a path in the answer: lines when it names some. */
export interface CiteRef { cite: string; path: string; start_line?: number; end_line?: number }

/** What may not be inside a path written in prose (it ends the path): space, quotes, brackets, separators. */
const NOT_PATH = String.raw`\s\x60'"()\[\]{}<>,;:|*?!#`;
/** A path as written: with a folder, or a file name with an alphabetic extension. */
const PATH_SHAPE = new RegExp(String.raw`(?<![^${NOT_PATH}])(?:\.\/|\/)?(?:[^${NOT_PATH}\/]+\/)+[^${NOT_PATH}\/]+|(?<![^${NOT_PATH}])[^${NOT_PATH}\/.][^${NOT_PATH}\/]*\.[A-Za-z]\w*`, 'gu');
const URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s)>\]`'"]*/gi;
/** A Markdown link whose target is not a URL (those are blanked first): `[text](target)`. */
const LINK = /\[([^\]\n]+)\]\(\s*([^)\s]+)\s*\)/g;
/** A link target that names lines: `src/a.py#L3`, `src/a.py:3`. */
const TARGET_LINES = /(?:#L?|:)\d+/;

/** Extensions a path mentioned without a line must end in (besides the evidence's own paths). */
const FILE_EXTENSIONS = new Set([
  'py', 'pyi', 'pyx', 'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'json', 'jsonc', 'md', 'rst', 'txt', 'toml',
  'yaml', 'yml', 'ini', 'cfg', 'conf', 'env', 'lock', 'sh', 'bash', 'zsh', 'ps1', 'bat', 'html', 'htm', 'css', 'scss',
  'sass', 'less', 'vue', 'svelte', 'go', 'rs', 'java', 'kt', 'kts', 'scala', 'rb', 'php', 'c', 'h', 'cc', 'cpp', 'hpp',
  'cxx', 'cs', 'swift', 'm', 'mm', 'sql', 'graphql', 'proto', 'xml', 'csv', 'tsv', 'ipynb', 'r', 'lua', 'pl', 'ex',
  'exs', 'erl', 'hs', 'ml', 'dart', 'gradle', 'tf', 'dockerfile', 'mk', 'cmake', 'in', 'svg',
]);

const NUM = String.raw`L?(\d+)`;
const RANGE = String.raw`${NUM}(?:\s*(?:-|–|—|to|through|and)\s*${NUM})?`;
/** Right after the path: `:12`, `:12-14`, `#L12-L14`. */
const COLON_AFTER = new RegExp(String.raw`^\x60?(?::|#)${NUM}(?:\s?[-–]\s?${NUM})?(?![\w])`, 'u');
/** After the path in prose: ` at line 12`, ` (line 12)`, `, lines 10–14`, ` on lines 3 and 4`. */
const PROSE_AFTER = new RegExp(String.raw`^\x60?\s*(?:,\s*|\(\s*|\s+(?:at|on|in|from)\s+|\s+)lines?\s+${RANGE}(?:\s*\))?`, 'iu');
/** Before the path in prose: `lines 10–14 of `, `line 12 in the file `. */
const PROSE_BEFORE = new RegExp(String.raw`\blines?\s+${RANGE}\s+(?:of|in|from)\s+(?:the\s+file\s+)?\x60?$`, 'iu');

/** Masks `[from, to)` of a string with spaces, keeping every other index in place. */
function blank(text: string, from: number, to: number): string {
  return text.slice(0, from) + ' '.repeat(to - from) + text.slice(to);
}

function lines(m: RegExpExecArray): { start_line: number; end_line: number } | null {
  const a = Number(m[1]);
  const b = m[2] !== undefined ? Number(m[2]) : a;
  if (!(a >= 1 && b >= 1)) return null;
  return { start_line: Math.min(a, b), end_line: Math.max(a, b) };
}

/** A path ends before sentence punctuation: `see src/app.py.` */
function trimEnd(path: string): string {
  return path.replace(/[.]+$/, '');
}

/**
 * Every distinct reference to a path in `answer`, in order of appearance: a
 * path with lines once per distinct span; a path without a line once, and
 * only when the answer names no lines of it anywhere.
 */
export function findPathRefs(answer: string, where: PathContext = {}): CiteRef[] {
  const knownPaths = where.knownPaths ?? [];
  const meant = pathResolver(where);
  let text = answer;
  for (const m of answer.matchAll(URL)) text = blank(text, m.index!, m.index! + m[0].length);
  for (const m of text.matchAll(LINK)) {
    // One reference per link: the target when it names lines, else the text.
    const textAt = m.index! + 1;
    const targetAt = m.index! + m[0].indexOf('](') + 2;
    text = TARGET_LINES.test(m[2]) ? blank(text, textAt, textAt + m[1].length) : blank(text, targetAt, m.index! + m[0].length - 1);
  }
  const found: Array<{ at: number; end: number; path: string; written: string; known: boolean }> = [];
  // Evidence paths first, longest first, so `src/a.py` is not found again inside `lib/src/a.py`.
  let rest = text;
  for (const p of [...new Set(knownPaths)].sort((a, b) => b.length - a.length)) {
    for (let i = rest.indexOf(p); i >= 0; i = rest.indexOf(p, i + p.length)) {
      const before = rest[i - 1], after = rest[i + p.length];
      const glued = (c: string | undefined, extra: string): boolean => c !== undefined && (/[\w/-]/u.test(c) || extra.includes(c));
      if (glued(before, '.') || glued(after, '')) continue;
      found.push({ at: i, end: i + p.length, path: p, written: p, known: true });
      rest = blank(rest, i, i + p.length);
    }
  }
  for (const m of rest.matchAll(PATH_SHAPE)) {
    const written = trimEnd(m[0].replace(/^\.\//, ''));
    const path = meant(written);
    found.push({ at: m.index!, end: m.index! + m[0].replace(/[.]+$/, '').length, path, written, known: path !== written && !path.startsWith('/') });
  }
  found.sort((a, b) => a.at - b.at);

  const out: Array<{ at: number; ref: CiteRef }> = [];
  const seen = new Set<string>();
  const bare: Array<{ at: number; ref: CiteRef }> = [];
  for (const f of found) {
    const after = text.slice(f.end);
    const colon = COLON_AFTER.exec(after);
    // Prose forms only for what looks like a file (not `Scaffold.route at line 335`).
    const fileLike = f.known || f.path.includes('/') || hasFileExtension(f.path);
    // `lines 10-14 of a.py, line 3 in b.py`: a phrase before the path wins over one after it (that one is the next path's).
    const before = colon || !fileLike ? null : PROSE_BEFORE.exec(text.slice(Math.max(0, f.at - 80), f.at));
    const prose = colon || before || !fileLike ? null : PROSE_AFTER.exec(after);
    const m = colon ?? before ?? prose;
    const span = m ? lines(m) : null;
    if (span) {
      const from = before ? f.at - before[0].length : f.at;
      const to = before ? f.end + (text[f.end] === '\x60' ? 1 : 0) : f.end + m![0].length;
      const key = `${f.path}:${span.start_line}-${span.end_line}`;
      if (!seen.has(key)) { seen.add(key); out.push({ at: from, ref: { cite: answer.slice(from, to).replace(/\x60/g, ''), path: f.path, ...span } }); }
    } else if (f.known || hasFileExtension(f.path)) {
      bare.push({ at: f.at, ref: { cite: f.written, path: f.path } });
    }
  }
  const withLines = new Set(out.map((r) => r.ref.path));
  const bareSeen = new Set<string>();
  for (const b of bare) {
    if (withLines.has(b.ref.path) || bareSeen.has(b.ref.path)) continue;
    bareSeen.add(b.ref.path);
    out.push(b);
  }
  return out.sort((a, b) => a.at - b.at).map((r) => r.ref);
}

/**
 * The repository path a written path means: an absolute path under the root,
 * relative to it (and `/src/app.py` for an evidence path `src/app.py`); an
 * alias's path; else the path as written.
 */
function pathResolver(where: PathContext): (written: string) => string {
  const known = new Set(where.knownPaths ?? []);
  const root = where.root?.replace(/\/+$/, '');
  return (written) => {
    if (known.has(written)) return written;
    if (written.startsWith('/')) {
      if (root && written.startsWith(`${root}/`)) return written.slice(root.length + 1);
      return known.has(written.slice(1)) ? written.slice(1) : written;
    }
    return where.aliases?.get(written) ?? written;
  };
}

/** The one path of `paths` that `written` (a file name, or a path's tail) ends, or undefined when none or several do. */
export function onlyPathEnding(written: string, paths: readonly string[]): string | undefined {
  const ends = paths.filter((p) => p.endsWith(`/${written}`));
  return ends.length === 1 ? ends[0] : undefined;
}

/** Ends in an extension of FILE_EXTENSIONS (and is not a framework's name such as `Node.js`). */
function hasFileExtension(path: string): boolean {
  const ext = /\.([A-Za-z]\w*)$/.exec(path)?.[1]?.toLowerCase();
  return ext !== undefined && FILE_EXTENSIONS.has(ext) && !/^[A-Z][a-z]+\.js$/.test(path);
}
