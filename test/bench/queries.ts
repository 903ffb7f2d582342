// The bench's query sets, drawn from the corpus itself with a fixed seed, so
// every run (and any profiling script) asks the same questions: random 3-20
// character substrings of random lines for search_code, 5% samples of defined
// names for find_symbol and of imported modules for find_importers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Corpus } from './corpus.js';
import { mulberry32 } from '../helpers/random.js';

export interface Queries { search: string[]; symbols: string[]; modules: string[] }
/** `share`: the share of defined names and imported modules sampled (all of them, on a corpus as small as the fixture). */
export function drawQueries(c: Corpus, n: number, share = 0.05): Queries {
  const rand = mulberry32(20261130);
  const search: string[] = [];
  const symbols = new Set<string>();
  const modules = new Set<string>();
  const texts = c.files.map((f) => readFileSync(join(c.root, f), 'utf8').split('\n'));
  for (const lines of texts) {
    for (const l of lines) {
      const d = /^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/.exec(l);
      if (d && rand() < share) symbols.add(d[1]);
      const m = /^\s*(?:from\s+([A-Za-z_][\w.]*)\s+import|import\s+([A-Za-z_][\w.]*))/.exec(l);
      if (m && rand() < share) modules.add(m[1] ?? m[2]);
    }
  }
  while (search.length < n) {
    const lines = texts[Math.floor(rand() * texts.length)];
    const line = lines[Math.floor(rand() * lines.length)]?.trim() ?? '';
    if (line.length < 3) continue;
    const len = 3 + Math.floor(rand() * 18);
    const start = Math.floor(rand() * Math.max(1, line.length - len));
    const q = line.slice(start, start + len).trim();
    if (q.length >= 3 && q.length <= 20) search.push(q);
  }
  const pick = (s: Set<string>) => [...s].sort(() => rand() - 0.5).slice(0, n);
  return { search, symbols: pick(symbols), modules: pick(modules) };
}
