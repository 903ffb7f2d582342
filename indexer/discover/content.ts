// Binary detection (docs/tools.md, What is indexed): a file with a NUL byte in its first 8 KiB is
// binary and is not indexed. The same test git and ripgrep use; it needs the
// content, so the indexer calls it on the bytes it has read anyway.

/** How many leading bytes are inspected for a NUL. */
export const BINARY_SNIFF_BYTES = 8 * 1024;

/** True when a NUL byte occurs within the first 8 KiB (bytes 0..8191). */
export function isBinary(bytes: Uint8Array): boolean {
  const head = bytes.length > BINARY_SNIFF_BYTES ? bytes.subarray(0, BINARY_SNIFF_BYTES) : bytes;
  return head.indexOf(0) !== -1;
}
