// What `evidex index --unresolved` prints below the summary: the TS/JS import
// statements that resolved nowhere (the daemon's `index/unresolved`, or the
// index itself when built in-process), grouped by reason, each as the tool
// commands print an import — `path:line: text`, the file's own line, shown
// by local/human.ts's rule — with the footer they print ("N of M shown").
import { human, join, line, paint, path, type Shown } from '../local/human.js';
import type { UnresolvedStatement } from '../indexer/api.js';
import type { Unresolved, UnresolvedImports } from '../protocol/messages.js';
import { OTHER_EXTENSION, UNRESOLVED_REASONS } from '../indexer/query/limits.js';
import { UNRESOLVED_WORDS } from './daemon-report.js';
import { LEFT_OUT_WORDS } from './left-out-note.js';
import { formatEvidence, formatFooter, type FormatOptions } from './commands/tool-command.js';

/** Why each reason's statements reach nothing, as the group's header says it (docs/tools.md, "A statement that resolves nowhere"); groups come in UNRESOLVED_REASONS' order, the answer's. */
const WHY: Record<Unresolved, string> = {
  missing: 'a relative path, a paths alias, a # import or a repository package\'s subpath that reaches no file of the repository the compiler would load (an asset such as .css, or JSON without resolveJsonModule, is none)',
  config: 'the governing tsconfig or jsconfig could not be read (its JSON does not parse, or a config it extends is not indexed)',
  external: 'a bare specifier of no package of the repository',
};

/**
 * The listed statements (stdout): a `# reason` header before each reason's
 * statements on this page, then their lines. Under a `prefix` (root-relative),
 * the header counts the reason's statements under it and in the whole repository.
 */
export function formatUnresolved(r: UnresolvedImports, opts: FormatOptions, prefix?: string): Shown | null {
  const groups: Shown[] = [];
  const count = (reason: Unresolved): Shown => (prefix === undefined || !r.repository_counts ? human`${r.counts[reason]}`
    : human`${r.counts[reason]} under ${path(opts.shown ? opts.shown(prefix) : prefix)}, ${r.repository_counts[reason]} in the repository`);
  for (const reason of UNRESOLVED_REASONS) {
    const items = r.items.filter((e) => e.reason === reason);
    if (items.length === 0) continue;
    // Marked with '#', dim, as the tool commands mark their own headers: no `path:line: text` line of a file.
    groups.push(paint('2', human`# ${UNRESOLVED_WORDS[reason]} (${count(reason)}): ${WHY[reason]}`));
    const ext = r.extensions?.[reason];
    if (ext?.length) groups.push(paint('2', human`#   by extension: ${formatExtensions(ext)}`));
    groups.push(join(items.map((e) => formatStatement(e, opts))));
  }
  return groups.length ? join(groups) : null;
}

/**
 * One statement's lines; one that reaches a file the index left out says so
 * first, on a `#` line (not a line of the file), so nobody looks for a
 * missing file: it is there, and too large or binary to be a target.
 */
function formatStatement(e: UnresolvedStatement, opts: FormatOptions): Shown {
  const lines = formatEvidence([e], opts);
  const to = e.reaches_left_out;
  if (!to) return lines;
  const where = path(opts.shown ? opts.shown(to.path) : to.path);
  return join([paint('2', human`# reaches ${where}, a file left out of the index: ${LEFT_OUT_WORDS[to.reason]}`), lines]);
}

/** At most this many extensions are named; the rest are counted together. */
const EXTENSIONS_NAMED = 8;

/**
 * `200 .css · 80 .scss · 12 none · 3 other`: a specifier's extension is repository text, shown by the rule;
 * `other` counts those of no known file type (OTHER_EXTENSION) with the ones past the named few.
 */
function formatExtensions(ext: ReadonlyArray<[string, number]>): Shown {
  const known = ext.filter(([e]) => e !== OTHER_EXTENSION);
  const named = known.slice(0, EXTENSIONS_NAMED).map(([e, n]) => human`${n} ${e || 'none'}`);
  const rest = [...known.slice(EXTENSIONS_NAMED), ...ext.filter(([e]) => e === OTHER_EXTENSION)].reduce((sum, [, n]) => sum + n, 0);
  return join(rest ? [...named, human`${rest} other`] : named, ' · ');
}

/**
 * The footer (stderr): how many of the asked reasons' statements are shown, and
 * the reasons not asked for that have statements, with the flag that lists them;
 * `under`: the --path-prefix they were looked for under, as shown.
 */
export function formatUnresolvedFooter(r: UnresolvedImports, asked: readonly Unresolved[], under?: string): Shown {
  const footer = formatFooter({ evidence: r.items, total: r.total, generation: r.generation });
  const others = UNRESOLVED_REASONS.filter((x) => !asked.includes(x) && r.counts[x] > 0);
  // Nothing of any reason: said in words, so a Python repository's bare "0 of 0" is not taken for a failure to look.
  const where = under === undefined ? '' : human` under ${path(under)}`;
  // (A note saying nothing is under the prefix at all says more.)
  if (others.length === 0 && r.total === 0 && !r.notes?.length) return human`${footer}
no TypeScript or JavaScript import statement${where} resolves nowhere (--unresolved lists those only)`;
  if (others.length === 0) return footer;
  const notListed = others.map((x) => line(`${r.counts[x]} ${UNRESOLVED_WORDS[x]} (--reason ${x})`));
  return human`${footer}\nnot listed: ${join(notListed, ', ')}`;
}
