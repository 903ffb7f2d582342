// A one-line progress display for long work (indexing): redrawn in place on a
// terminal, a line every few seconds when stderr is a file or pipe, nothing with --json.
import type { BuildProgress } from '../indexer/api.js';
import { ERASE_RIGHT, human, RETURN, type Screen, type Shown } from '../local/human.js';

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
    if (this.quiet) return;
    const label = progressWords(p);
    if (this.out.isTTY) {
      const width = 30;
      const frac = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
      const filled = Math.round(frac * width);
      this.out.write(human`${RETURN}[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${label}${ERASE_RIGHT}`);
      this.drawn = true;
    } else if (p.phase === 'done' || (p.done > 0 && this.now() - this.lastPlain > 2000)) {
      // A line for nothing done yet (`walk 0 files`, as every build starts) says nothing a file or pipe keeps.
      this.lastPlain = this.now();
      this.out.line(label);
    }
  }

  done(): void {
    if (this.drawn) this.out.write(human`${RETURN}${ERASE_RIGHT}`);
    this.drawn = false;
  }
}
