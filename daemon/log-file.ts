// The daemon's log file (daemon.log) is its stdout and stderr both, opened by
// whoever started it, and others write there by their own rules: lmdb's
// native code prints "Write error: …" with no line break when a write fails,
// and on a full disk a record of the daemon's own may be cut short. So every
// record starts on a line of its own: before one is written, the file's last
// byte is read (through /proc/self/fd, as the log's own descriptor is
// write-only), and a line break goes first when that byte is not one.
import { fstatSync, openSync, readSync } from 'node:fs';

export class LogLineStart {
  /** A read-only descriptor of the log file; null when the log is not a regular file (a terminal, a pipe) or cannot be read back. */
  private readonly reader: number | null;

  constructor(private readonly fd = 1) {
    let reader: number | null = null;
    try {
      if (fstatSync(fd).isFile()) reader = openSync(`/proc/self/fd/${fd}`, 'r');
    } catch {
      reader = null;
    }
    this.reader = reader;
  }

  /** Whether the file ends in the middle of a line, so the next record must begin with a line break. */
  midLine(): boolean {
    if (this.reader === null) return false;
    try {
      const { size } = fstatSync(this.fd);
      if (size === 0) return false;
      const last = Buffer.alloc(1);
      readSync(this.reader, last, 0, 1, size - 1);
      return last[0] !== 0x0a;
    } catch {
      return false;
    }
  }
}
