// How long a path evidex indexes may be (docs/tools.md, What is indexed). A
// repository is hostile input: a chain of folders nested past the system's
// limits, made with relative mkdirs, must not stop the index. Such a path is
// left out with its reason ('pathTooLong', see left-out.ts) and the walk goes
// on; the watcher does not watch below it.
//
// Two limits. The system's: no file name is longer than NAME_MAX bytes and no
// path PATH_MAX (Linux; macOS is lower), so an absolute path past them cannot
// be opened at all (ENAMETOOLONG). And the index's own: a repository path is a
// key in the store (LMDB keys end near 2,000 bytes), and no real project
// nests a kilobyte deep, so a relative path over MAX_INDEXED_PATH_BYTES is
// left out too, before it could reach a key.

/** The longest file name (bytes of one path segment) and whole path Linux and macOS accept. */
export const NAME_MAX = 255;
export const PATH_MAX = 4095;
/** The longest repository-relative path (UTF-8 bytes) evidex indexes. */
export const MAX_INDEXED_PATH_BYTES = 1024;

/** True when `relPath` (POSIX, under `realRoot`) is past one of the limits above: it is left out. */
export function isPathTooLong(realRoot: string, relPath: string): boolean {
  const rel = Buffer.byteLength(relPath);
  if (rel > MAX_INDEXED_PATH_BYTES || Buffer.byteLength(realRoot) + 1 + rel > PATH_MAX) return true;
  return relPath.split('/').some((seg) => Buffer.byteLength(seg) > NAME_MAX);
}

/** The error a path past the system's limits gives (checked beside the rule above: a root near the limit, a name from an event). */
export function isNameTooLongError(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENAMETOOLONG';
}
