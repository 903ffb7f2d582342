// The bench's small statistics and its one table (figure, evidex, reference,
// ratio, target, met), shared by every part of the bench.

export function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
export interface Stats { p50: number; p90: number; p99: number; max: number; n: number; over1ms: number }
export function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: pct(s, 50), p90: pct(s, 90), p99: pct(s, 99), max: s[s.length - 1], n: s.length, over1ms: s.filter((x) => x > 1).length };
}
/** "1.3% (4 of 300)": the share of round trips over 1 ms, which is what decides a p99 < 1 ms target. */
export const over1 = (st: Stats) => `${((100 * st.over1ms) / st.n).toFixed(1)}% (${st.over1ms} of ${st.n})`;

export async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const v = await fn();
  return [performance.now() - t0, v];
}

export const ms = (x: number) => (x < 1 ? `${x.toFixed(3)} ms` : `${x.toFixed(1)} ms`);
export const sec = (x: number) => `${x.toFixed(2)} s`;
export const mib = (x: number) => `${(x / 1048576).toFixed(1)} MiB`;

export interface Row { figure: string; evidex: string; reference: string; ratio: string; target: string; met: string }
export const rows: Row[] = [];
export function rowOf(figure: string, evidex: string, reference = '', ratio = '', target = '', met: boolean | null = null): Row {
  return { figure, evidex, reference, ratio, target, met: met === null ? '' : met ? 'yes' : 'NO' };
}
export function row(...a: Parameters<typeof rowOf>): void {
  rows.push(rowOf(...a));
}

export function printTable(): void {
  const cols: (keyof Row)[] = ['figure', 'evidex', 'reference', 'ratio', 'target', 'met'];
  printGrid([cols, ...rows.map((r) => cols.map((k) => r[k]))]);
}

/** Rows of cells, the first the header, as a Markdown table with each column padded to its widest cell. */
export function printGrid(grid: readonly (readonly string[])[]): void {
  const w = grid[0].map((_, k) => Math.max(...grid.map((r) => r[k].length)));
  const line = (r: readonly string[]) => `| ${r.map((c, k) => c.padEnd(w[k])).join(' | ')} |`;
  console.log(line(grid[0]));
  console.log(`|${w.map((n) => '-'.repeat(n + 2)).join('|')}|`);
  for (const r of grid.slice(1)) console.log(line(r));
}
