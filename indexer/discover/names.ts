// File names that are not UTF-8 (docs/tools.md, What is indexed). Node decodes
// such a name with U+FFFD in place of the bad bytes, which names no file on
// disk: opened by that name it is "gone", and it would be dropped without a
// word. The walk lists a folder by its bytes when a name shows U+FFFD, keeps
// the names that really are UTF-8 (U+FFFD is a character a name may hold) and
// leaves the others out, counted with their reason ('nameNotUtf8').
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';

/** What the walk asks of a folder entry. */
export type FolderEntry = Pick<Dirent, 'name' | 'isDirectory' | 'isFile' | 'isSymbolicLink'>;

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `bytes` as UTF-8 text, or null when they are not UTF-8. */
function utf8OrNull(bytes: Uint8Array): string | null {
  try { return strict.decode(bytes); } catch { return null; }
}

/**
 * A name that is not UTF-8, shown readably and reversibly: the valid parts as
 * they are, each byte of an invalid sequence as `\xHH` (and a backslash as `\\`,
 * so the form cannot be mistaken for a name that holds the four characters).
 */
export function escapedName(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const len = b < 0x80 ? 1 : b >= 0xf0 && b < 0xf5 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    const ch = len === 0 ? null : utf8OrNull(bytes.subarray(i, i + len));
    if (ch === null || (len > 1 && i + len > bytes.length)) { out += `\\x${b.toString(16).padStart(2, '0')}`; i++; continue; }
    out += ch === '\\' ? '\\\\' : ch;
    i += len;
  }
  return out;
}

/** True when a name as Node decoded it may stand for bytes that are not UTF-8. */
export function mayBeNotUtf8(name: string): boolean {
  return name.includes('\uFFFD');
}

/**
 * The entries of a folder whose listing showed U+FFFD, by their bytes: `entries`
 * holds those whose names are UTF-8 (named by their text), `notUtf8` the escaped
 * names (escapedName) of the others. Throws as readdir does.
 */
export async function listByBytes(absDir: string): Promise<{ entries: FolderEntry[]; notUtf8: string[] }> {
  const raw = await readdir(absDir, { withFileTypes: true, encoding: 'buffer' });
  const entries: FolderEntry[] = [];
  const notUtf8: string[] = [];
  for (const d of raw) {
    const bytes = d.name as unknown as Buffer;
    const name = utf8OrNull(bytes);
    if (name === null) { notUtf8.push(escapedName(bytes)); continue; }
    entries.push({ name, isDirectory: () => d.isDirectory(), isFile: () => d.isFile(), isSymbolicLink: () => d.isSymbolicLink() });
  }
  return { entries, notUtf8 };
}
