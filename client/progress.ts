// A one-line progress display for long work (indexing): redrawn in place on a
// terminal, a line every few seconds when stderr is a file or pipe, nothing with --json.
import type { BuildProgress } from '../indexer/api.js';
import { ERASE_RIGHT, fitLine, human, RETURN, type Screen, type Shown } from '../local/human.js';

/** A build's progress in words, `parse 1200/3536 files · 1 left out`: the progress line's, and an MCP host's progress message. */
export function progressWords(p: BuildProgress): Shown {
  const counted = p.total > 0 ? human`${p.phase} ${p.done}/${p.total} files` : human`${p.phase} ${p.done} files`;
  // Files read and then left out (binary): in the count, so its total never shrinks, and said, so the summary's count adds up.
  return p.leftOut ? human`${counted} · ${p.leftOut} left out` : counted;
}

export class ProgressLine {
  private lastPlain = 0;
  private drawn = false;

  /** `now`: the clock the plain lines are spaced by (a test's own). */
  constructor(private readonly out: Screen, private readonly quiet: boolean, private readonly now: () => number = Date.now) {}

  update(p: BuildProgress): void {
    this.show(p.total > 0 ? p.done / p.total : 0, progressWords(p), p.phase === 'done', p.done > 0);
  }

  /**
   * Progress in any words: `fraction` fills the bar. On a file or pipe a line
   * is written every few seconds once the work has `moved` (a line for
   * nothing done yet, `walk 0 files` as every build starts, says nothing a
   * file or pipe keeps), and at once for the `last`.
   */
  show(fraction: number, label: Shown, last = false, moved = true): void {
    if (this.quiet) return;
    if (this.out.isTTY) {
      const width = 30;
      const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
      // A line that wraps is not redrawn in place (each redraw would leave a line behind): cut to the terminal's width.
      const columns = this.out.columns;
      const fit = columns === undefined ? label : fitLine(label.plain, columns - width - 4);
      this.out.write(human`${RETURN}[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${fit}${ERASE_RIGHT}`);
      this.drawn = true;
    } else if (last || (moved && this.now() - this.lastPlain > 2000)) {
      this.lastPlain = this.now();
      this.out.line(label);
    }
  }

  done(): void {
    if (this.drawn) this.out.write(human`${RETURN}${ERASE_RIGHT}`);
    this.drawn = false;
  }
}
