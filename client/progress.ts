// A one-line progress display for long work (indexing): redrawn in place on a
// terminal, a line every few seconds when stderr is a file or pipe, nothing with --json.
import type { BuildProgress } from '../indexer/api.js';

export class ProgressLine {
  private lastPlain = 0;
  private drawn = false;
  private readonly tty: boolean;

  constructor(private readonly out: NodeJS.WriteStream, private readonly quiet: boolean) {
    this.tty = Boolean(out.isTTY);
  }

  update(p: BuildProgress): void {
    if (this.quiet) return;
    const label = p.total > 0 ? `${p.phase} ${p.done}/${p.total} files` : `${p.phase} ${p.done} files`;
    if (this.tty) {
      const width = 30;
      const frac = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
      const filled = Math.round(frac * width);
      this.out.write(`\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${label}\x1b[K`);
      this.drawn = true;
    } else if (Date.now() - this.lastPlain > 2000 || p.phase === 'done') {
      this.lastPlain = Date.now();
      this.out.write(`${label}\n`);
    }
  }

  done(): void {
    if (this.drawn) this.out.write('\r\x1b[K');
    this.drawn = false;
  }
}
