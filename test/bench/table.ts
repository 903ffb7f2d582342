// The benchmark's one table: figure, evidex, reference, ratio, target, met.
// Every part of the bench adds its rows here; bench.ts prints them once.
export interface Row { figure: string; evidex: string; reference: string; ratio: string; target: string; met: string }
export const rows: Row[] = [];
export function rowOf(figure: string, evidex: string, reference = '', ratio = '', target = '', met: boolean | null = null): Row {
  return { figure, evidex, reference, ratio, target, met: met === null ? '' : met ? 'yes' : 'NO' };
}
export function row(...a: Parameters<typeof rowOf>): void {
  rows.push(rowOf(...a));
}
export const ms = (x: number) => (x < 1 ? `${x.toFixed(3)} ms` : `${x.toFixed(1)} ms`);
export const sec = (x: number) => `${x.toFixed(2)} s`;
export const mib = (x: number) => `${(x / 1048576).toFixed(1)} MiB`;

export function printTable(): void {
  const head: Row = { figure: 'figure', evidex: 'evidex', reference: 'reference', ratio: 'ratio', target: 'target', met: 'met' };
  const cols = Object.keys(head) as (keyof Row)[];
  const w = Object.fromEntries(cols.map((k) => [k, Math.max(...[head, ...rows].map((r) => r[k].length))])) as Record<keyof Row, number>;
  const line = (r: Row) => `| ${cols.map((k) => r[k].padEnd(w[k])).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${cols.map((k) => '-'.repeat(w[k] + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}
