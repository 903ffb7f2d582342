// How evidex turns file bytes into lines. As docs/tools.md (Evidence) says: lines are split at "\n"
// only, a trailing "\r" is dropped, and bytes that are not UTF-8 decode as
// U+FFFD. Every snippet, every line number and every search result goes through
// these two functions, so an Evidence item can always be checked against the file.

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Decodes file bytes as UTF-8; invalid sequences become U+FFFD. A BOM is kept as text. */
export function decodeText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * Splits text into lines at "\n", dropping one trailing "\r" per line. A final
 * "\n" ends the last line rather than starting an empty one, so "a\n" is one
 * line and "" is a single empty line (every file has at least line 1).
 */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.length > 0 && line.charCodeAt(line.length - 1) === 13) lines[i] = line.slice(0, -1);
  }
  return lines;
}

/**
 * `s` as a string of its own. V8 makes a substring of 13 or more characters a
 * view into the string it was cut from, which then stays alive as long as the
 * view does: a long line split from a file's text keeps the whole text, a
 * name decoded from an LMDB row keeps the row's strings. What the daemon
 * keeps for its whole life is copied through here first (issue 31: on
 * site-packages such views held ~36 MB of strings nothing else used).
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}
