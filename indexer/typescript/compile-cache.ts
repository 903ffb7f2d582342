// V8's code cache of one script (the compiler), kept in a folder of evidex's
// state (load.ts). Cached code is run as it is, and V8 checks only that it was
// made by the same V8 with the same flags for a source of the same length: it
// would run stale code for an edited source of equal length, and whoever can
// write the file can make this process run what they like. So:
//
// - a cache is named by the SHA-256 of the source it was made from and by
//   V8's version tag (its version, flags and CPU features): it is only ever
//   offered to that source, in a process V8 would accept it in. Hashing the
//   compiler's 9 MB costs ~5 ms of a ~75 ms load from the cache
//   (docs/performance/typescript.md), too little to trade for a key from the file's
//   metadata, which a patched file of the same size and mtime would share;
// - the folder and the file are used only when they are ours alone (not a
//   link, owned by us, writable by nobody else), judged on what is opened;
//   anything else is left alone and the compiler is compiled as usual;
// - a cache is written under a temporary name, then renamed into place, so a
//   reader never sees half of one;
// - a cache is stamped (its mtime) each time it is read, and writing a new one
//   removes all but the few most recently used: caches of a TypeScript or a
//   V8 no longer installed go, while a home shared by two Node versions
//   keeps what each uses (KEEP_CACHES). Only names of our own pattern are
//   removed, and only regular files of ours alone (a link, a folder,
//   anything not ours stays).
//
// Every failure (no folder, a full disk, a refused file) only means the
// compiler is compiled from its source, as without a cache.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, futimesSync, lstatSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { madeOwnFolder, notOursAlone } from '../../local/state-trust.js';

/** A cache bigger than this is no cache of ours (the compiler's is ~2.7 MiB). */
const MAX_CACHE_BYTES = 64 << 20;
/**
 * How many caches a home keeps. A V8 tag covers the process's flags: an
 * in-process build's threads share one, a daemon (started with its own heap
 * flags) has another; so two Node versions need four, and eight also keep two
 * TypeScript versions' (two installs of evidex sharing a home).
 */
export const KEEP_CACHES = 8;
/** A temporary file older than this was left by a writer that died (a write takes milliseconds). */
const STALE_TEMP_MS = 60 * 60 * 1000;
/** The names pathOf and write give: `NAME-KEY-v8-TAG.cache`, and its temporary `….cache.PID-THREAD.tmp`. */
const CACHE_NAME = /^[^/\\]+-[0-9a-f]{32}-v8-[0-9]+\.cache$/;
const TEMP_NAME = /^[^/\\]+-[0-9a-f]{32}-v8-[0-9]+\.cache\.[0-9]+-[0-9]+\.tmp$/;

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
    // The folder first: when it is refused, the caller loads the script from source and the hash would be wasted.
    try {
      if (madeOwnFolder(dir) !== null) return null;
    } catch {
      return null;
    }
    const bytes = readFileSync(file);
    const key = `${basename(file)}-${createHash('sha256').update(wrap.before).update(bytes).update(wrap.after).digest('hex').slice(0, 32)}`;
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
      return;
    }
    pruneCaches(this.dir, basename(path));
  }
}

/**
 * Removes, from the cache folder `dir`, all caches but `current` and the
 * KEEP_CACHES - 1 others most recently used, and temporary files a dead
 * writer left. Only regular files of ours alone with names of our pattern
 * are touched (lstat: a link is never followed, nor removed), in a folder
 * that is still ours alone, so nobody else can swap a name between the look
 * and the removal. Best effort: a file another process removed first, or one
 * it is reading (its descriptor stays valid), is fine.
 */
function pruneCaches(dir: string, current: string): void {
  let names: string[];
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory() || notOursAlone(st) !== null) return;
    names = readdirSync(dir);
  } catch {
    return;
  }
  const others: Array<{ name: string; usedMs: number }> = [];
  const now = Date.now();
  for (const name of names) {
    const isCache = CACHE_NAME.test(name);
    if (name === current || (!isCache && !TEMP_NAME.test(name))) continue;
    let st;
    try {
      st = lstatSync(join(dir, name));
    } catch {
      continue;
    }
    if (!st.isFile() || notOursAlone(st) !== null) continue;
    if (isCache) others.push({ name, usedMs: st.mtimeMs });
    else if (now - st.mtimeMs > STALE_TEMP_MS) removeQuietly(join(dir, name));
  }
  others.sort((a, b) => b.usedMs - a.usedMs || (a.name < b.name ? -1 : 1));
  for (const { name } of others.slice(KEEP_CACHES - 1)) removeQuietly(join(dir, name));
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch { /* left for the next write to try again */ }
}

function basename(file: string): string {
  return file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
}

/** The file's bytes if it is a regular file of ours alone (judged on the open descriptor), else null; a file read is stamped as used (pruneCaches keeps the most recently used). */
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
    if (got !== st.size) return null;
    try {
      futimesSync(fd, st.atime, new Date());
    } catch { /* a stamp refused only makes this cache look older */ }
    return buf;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
