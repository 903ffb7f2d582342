// Random bytes from the kernel's generator (/dev/urandom), for the WebSocket
// client's key and masks and the names of temporary state files: node:crypto's
// randomBytes would load node:crypto, ~4 ms of CPU of every CLI call on Node
// 26 (docs/performance/cli-start.md).
// Builtins by process.getBuiltinModule(), not `import`: a CLI call loads this module,
// and importing a builtin builds its ES module facade (docs/performance/cli-start.md).
const { closeSync, openSync, readSync } = process.getBuiltinModule('node:fs');

/** `n` bytes from /dev/urandom. */
export function randomBytes(n: number): Buffer {
  const out = Buffer.alloc(n);
  const fd = openSync('/dev/urandom', 'r');
  try {
    for (let got = 0; got < n;) {
      const read = readSync(fd, out, got, n - got, null);
      if (read === 0) throw new Error('/dev/urandom gave no bytes');
      got += read;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}
