// The decoded text chunks a search or a snippet read last (text-chunks.ts),
// within a fixed budget of characters, least recently used out first. A page
// of search hits reads its snippets from the chunks the scan just decoded,
// and a file read twice in a row (a definition, then its lines) decodes once.
// The budget bounds it: the daemon's memory does not grow with the queries.

/** Chunk c of file fid as one number key (c < 2^22: a chunk is at least 4 KB, so files under 16 GB). */
export function chunkKey(fid: number, c: number): number { return fid * 0x400000 + c; }

import type { Chunk } from './search-text.js';

export class ChunkCache {
  private readonly map = new Map<number, Chunk>();
  private chars = 0;

  /** @param budget characters held at most, a chunk counted twice (its text, and lowercased); a chunk over a quarter of it is not kept */
  constructor(private readonly budget: number) {}

  get(key: number): Chunk | undefined {
    const t = this.map.get(key);
    if (t !== undefined) { this.map.delete(key); this.map.set(key, t); }
    return t;
  }

  set(key: number, chunk: Chunk): void {
    this.delete(key);
    if (2 * chunk.text.length > this.budget / 4) return;
    this.map.set(key, chunk);
    this.chars += 2 * chunk.text.length;
    while (this.chars > this.budget) {
      const [k, old] = this.map.entries().next().value as [number, Chunk];
      this.map.delete(k);
      this.chars -= 2 * old.text.length;
    }
  }

  delete(key: number): void {
    const t = this.map.get(key);
    if (t !== undefined) { this.map.delete(key); this.chars -= 2 * t.text.length; }
  }

  /** Characters held now. */
  get size(): number { return this.chars; }
}
