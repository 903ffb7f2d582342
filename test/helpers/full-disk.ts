// A real full disk for a test: a small tmpfs mounted on a temp folder (these
// machines run as root), filled to the last byte with one file, freed by
// removing it. `mountReason()` says why it cannot be done here (not root, no
// tmpfs, no mount), so the tests that need it are registered as skipped.
import { spawnSync } from 'node:child_process';
import { closeSync, fstatSync, ftruncateSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './fs.js';

function mount(dir: string, bytes: number): string | null {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, 'tmpfs', dir], { encoding: 'utf8' });
  return r.status === 0 ? null : `cannot mount a tmpfs here (${(r.stderr || r.error?.message || `status ${r.status}`).trim()})`;
}

function unmount(dir: string): void {
  spawnSync('umount', [dir], { stdio: 'ignore' });
}

let known: string | null | undefined;
/** Why a tmpfs cannot be mounted here, or null when it can (tried once per process). */
export function mountReason(): string | null {
  if (known !== undefined) return known;
  const dir = tempDir('mount-probe');
  known = mount(dir, 1 << 20);
  if (known === null) unmount(dir);
  return known;
}

/**
 * Writes `filler` until its disk refuses even a byte more; then gives `leave`
 * bytes back (whole pages: tmpfs frees by the page). For a disk mounted by
 * another process (a child that fills the disk its parent mounted).
 */
export function fillDisk(filler: string, leave = 0): void {
  const fd = openSync(filler, 'a');
  try {
    for (const size of [1 << 16, 4096, 1]) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try { writeSync(fd, chunk); } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw e;
        }
      }
    }
    if (leave > 0) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leave));
  } finally {
    closeSync(fd);
  }
}

export class SmallDisk {
  /** Every disk mounted and not yet unmounted: a test file's `after` unmounts them all (unmountAll), failed tests' too. */
  private static readonly mountedNow = new Set<SmallDisk>();
  private readonly filler: string;
  private mounted = true;

  private constructor(readonly dir: string) {
    this.filler = join(dir, 'filler');
  }

  /** A tmpfs of `bytes` mounted on a new temp folder. */
  static mount(bytes: number): SmallDisk {
    const dir = tempDir('small-disk');
    const why = mount(dir, bytes);
    if (why) throw new Error(why);
    const disk = new SmallDisk(dir);
    SmallDisk.mountedNow.add(disk);
    return disk;
  }

  /** Unmounts every disk still mounted. */
  static unmountAll(): void {
    for (const d of [...SmallDisk.mountedNow]) d.unmount();
  }

  /** Bytes left for a writer. */
  get free(): number {
    const s = statfsSync(this.dir);
    return s.bavail * s.bsize;
  }

  /** Writes the filler file until the disk refuses even a byte more; then gives `leave` bytes back (fillDisk). */
  fill(leave = 0): void {
    fillDisk(this.filler, leave);
  }

  /** Space returns: the filler file is removed. */
  release(): void {
    rmSync(this.filler, { force: true });
  }

  unmount(): void {
    if (!this.mounted) return;
    this.mounted = false;
    SmallDisk.mountedNow.delete(this);
    unmount(this.dir);
  }
}
