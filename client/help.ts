// What --help prints, laid out for an 80-column terminal: every line at most
// HELP_WIDTH columns, broken between words (a bracketed option of a usage
// line, `[--path-prefix P | --all]`, counts as one word), a continued line
// indented under its start. The commands' texts are written as whole
// sentences; the layout is made here, once.
import type { Command, FlagSpecs } from './command.js';

export const HELP_WIDTH = 80;

/**
 * `words` laid out in lines of at most `width` columns: the first starts with
 * `first`, the others with `rest`. A word longer than a whole line stays
 * whole on a line of its own.
 */
function fill(words: readonly string[], first: string, rest: string, width = HELP_WIDTH): string[] {
  const lines: string[] = [];
  let cur = first;
  let empty = true;
  for (const w of words) {
    if (!empty && cur.length + 1 + w.length > width) {
      lines.push(cur);
      cur = rest;
      empty = true;
    }
    cur += (empty ? '' : ' ') + w;
    empty = false;
  }
  lines.push(cur);
  return lines;
}

/**
 * Prose after `indent`: consecutive lines that start at the margin are one
 * paragraph, laid out anew (so a text written with its own line breaks is not
 * broken twice); an indented line (a list, an example) is its own, kept as
 * written when it fits (its alignment too), else broken between words under
 * its start. An empty line stays.
 */
export function wrap(text: string, indent = ''): string {
  const blocks: string[] = [];
  for (const line of text.split('\n')) {
    const last = blocks.length - 1;
    if (line !== '' && !line.startsWith(' ') && last >= 0 && blocks[last] !== '' && !blocks[last].startsWith(' ')) blocks[last] += ` ${line}`;
    else blocks.push(line);
  }
  return blocks.map((block) => {
    if (indent.length + block.length <= HELP_WIDTH) return block === '' ? '' : indent + block;
    const lead = indent + /^ */.exec(block)![0];
    return fill(block.trim().split(/\s+/), lead, lead).join('\n');
  }).join('\n');
}

/** A usage line wrapped between its words and bracketed groups, continued lines indented by `rest`. */
export function wrapUsage(usage: string, first: string, rest: string): string {
  return fill(usage.match(/\[[^\]]*\]|\S+/g) ?? [], first, rest).join('\n');
}

/** The options of `specs`: each flag, then its help wrapped in a column of its own. */
export function describeFlags(specs: FlagSpecs): string {
  const rows = Object.entries(specs).map(([name, s]) => [`--${name}${s.kind === 'boolean' ? '' : ` ${s.value ?? (s.kind === 'int' ? 'N' : 'VALUE')}`}`, s.help]);
  const width = Math.max(...rows.map(([f]) => f.length));
  const column = ' '.repeat(width + 4);
  return rows.map(([f, h]) => fill(h.split(/\s+/), `  ${f.padEnd(width)}  `, column).join('\n')).join('\n');
}

/** `evidex COMMAND --help`. */
export function commandHelp(cmd: Command): string {
  return [
    wrapUsage(cmd.usage, 'usage: ', '         '),
    wrap(cmd.summary),
    ...(cmd.details ? ['', wrap(cmd.details)] : []),
    '',
    'examples:',
    ...cmd.examples.map((e) => wrap(e, '  ')),
    '',
    'options:',
    describeFlags(cmd.flags),
  ].join('\n');
}

/** `evidex --help`: every command's usage and summary, then what holds for all. */
export function mainHelp(commands: readonly Command[], notes: readonly string[]): string {
  return [
    'evidex — a read-only, evidence-first code index for local LLMs',
    '',
    'usage:',
    ...commands.map((c) => `${wrapUsage(c.usage, '  ', '        ')}\n${wrap(c.summary, '      ')}`),
    '',
    ...notes.map((n) => wrap(n)),
  ].join('\n');
}
