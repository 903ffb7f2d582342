// V8's code cache of one script (the compiler), kept in a folder of evidex's
// state (load.ts). Cached code is run as it is, and V8 checks only that it was
// made by the same V8 with the same flags for a source of the same length: it
// would run stale code for an edited source of equal length, and whoever can
// write the file can make this process run what they like. So:
//
// - a cache is named by the SHA-256 of the source it was made from and by
//   V8's version tag (its version, flags and CPU features): it is only ever
//   offered to that source, in a process V8 would accept it in;
// - the folder and the file are used only when they are ours alone (not a
//   link, owned by us, writable by nobody else), judged on what is opened;
//   anything else is left alone and the compiler is compiled as usual;
// - a cache is written under a temporary name, then renamed into place, so a
//   reader never sees half of one.
//
// Every failure (no folder, a full disk, a refused file) only means the
// compiler is compiled from its source, as without a cache.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { notOursAlone } from '../../local/state-trust.js';

/** A cache bigger than this is no cache of ours (the compiler's is ~2.7 MiB). */
const MAX_CACHE_BYTES = 64 << 20;

export class CompileCache {
  private constructor(
    /** The script's source, wrapped, as read for the key: what must be compiled with the cache. */
    readonly source: string,
    /** The cache for this source and this V8, or null when there is none (or none of ours). */
    readonly cached: Buffer | null,
    private readonly dir: string,
    private readonly key: string,
  ) {}

  /** The file of this source's cache for V8 as it is now (flags set since the load, such as a worker's --expose-gc, change the tag). */
  private static pathOf(dir: string, key: string): string {
    return join(dir, `${key}-v8-${cachedDataVersionTag()}.cache`);
  }

  /**
   * The cache of the script at `file`, compiled as `wrap.before` + its text +
   * `wrap.after` (the key covers all three), in folder `dir` (made if
   * missing); null when the folder is not ours alone.
   */
  static open(dir: string, file: string, wrap: { before: string; after: string }): CompileCache | null {
    const bytes = readFileSync(file);
    const key = `${basename(file)}-${createHash('sha256').update(wrap.before).update(bytes).update(wrap.after).digest('hex').slice(0, 32)}`;
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return null;
    }
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory() || notOursAlone(st) !== null) return null;
    } catch {
      return null;
    }
    return new CompileCache(`${wrap.before}${bytes.toString('utf8')}${wrap.after}`, readOwn(CompileCache.pathOf(dir, key)), dir, key);
  }

  /** Stores `data` as this source's cache (best effort: a failure leaves no file behind). */
  write(data: Buffer): void {
    const path = CompileCache.pathOf(this.dir, this.key);
    const tmp = `${path}.${process.pid}-${threadId}.tmp`;
    try {
      const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        for (let off = 0; off < data.length;) off += writeSync(fd, data, off, data.length - off);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, path);
    } catch {
      rmSync(tmp, { force: true });
    }
  }
}

function basename(file: string): string {
  return file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
}

/** The file's bytes if it is a regular file of ours alone (judged on the open descriptor), else null. */
function readOwn(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || notOursAlone(st) !== null || st.size > MAX_CACHE_BYTES) return null;
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return got === st.size ? buf : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
