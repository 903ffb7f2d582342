// How a tsconfig.json edit's re-resolution scales: one generated repository
// with three projects whose tsconfig.json each governs a different number of
// import statements (250, 1,000, 4,000) through a `paths` alias, beside a
// project of 2,000 statements that no edit touches. Each project's config is
// edited to point the alias elsewhere (and back), and the time until
// find_importers of the new target counts every governed statement is taken
// through a running daemon. The contract asks that an edit re-resolve the
// statements it governs (only those): time should grow no faster than they do.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, daemonStop } from '../../client/connection.js';
import { git, tempDir, write } from '../helpers/fs.js';
import { call, median, timeUntilVisible, waitSteady } from './measure.js';
import { ms, row } from './table.js';

const SIZES = [250, 1000, 4000];
const UNTOUCHED = 2000;
const PER_FILE = 10;
const EDITS = 5;

const config = (dir: string): string => JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@t/*': [`${dir}/*`] } }, include: ['src', 'one', 'two'] });

/** A project of `statements` imports of `@t/target`, resolved to one/target.ts while its config says one/. */
function project(name: string, statements: number): Record<string, string> {
  const files: Record<string, string> = {
    [`${name}/tsconfig.json`]: config('one'),
    [`${name}/one/target.ts`]: 'export const v = 1;\n',
    [`${name}/two/target.ts`]: 'export const v = 2;\n',
  };
  for (let f = 0; f < statements / PER_FILE; f++) {
    files[`${name}/src/f${f}.ts`] = Array.from({ length: PER_FILE }, (_, i) => `import { v as v${i} } from '@t/target';\n`).join('') + `export const n${f} = 1;\n`;
  }
  return files;
}

export async function tsconfigScaleRows(env: NodeJS.ProcessEnv): Promise<void> {
  const root = tempDir('bench-tsconfig');
  write(root, { 'package.json': '{"name": "scale", "private": true}\n', ...project('fixed', UNTOUCHED), ...Object.assign({}, ...SIZES.map((n) => project(`p${n}`, n))) });
  git(root, ['init', '-q']);
  const client = await connect(root, { autoStart: true, env, startTimeoutMs: 120_000 });
  const per: Array<[number, number | null]> = [];
  try {
    await waitSteady(client);
    // A refusal (an index that does not know TS files) counts as no statement found.
    const count = async (path: string): Promise<number> => (await call(client, 'find_importers', { module_name: path, limit: 1 }).catch(() => null))?.total ?? -1;
    const before = await count('fixed/one/target.ts');
    for (const n of SIZES) {
      const times: number[] = [];
      let never = 0;
      for (let e = 0; e < EDITS; e++) {
        const to = e % 2 === 0 ? 'two' : 'one';
        const took = await timeUntilVisible(() => writeFileSync(join(root, `p${n}/tsconfig.json`), config(to)), async () => (await count(`p${n}/${to}/target.ts`)) === n);
        if (took === null) { never++; break; } // not re-resolved at all: the remaining edits would only wait too
        times.push(took);
      }
      const m = times.length ? median(times) : null;
      per.push([n, m]);
      row(`[ts] tsconfig.json edit to re-resolved answers, ${n} statements governed (median of ${EDITS})`, m === null ? 'never' : ms(m), never ? 'not re-resolved within 10 s (the remaining edits not tried)' : '');
    }
    const after = await count('fixed/one/target.ts');
    row(`[ts] statements of the project no edit touched, before / after`, `${before} / ${after}`, `${UNTOUCHED} governed`, '', 'unchanged', before === UNTOUCHED && after === UNTOUCHED);
    const [small, large] = [per[0], per[per.length - 1]];
    if (small[1] !== null && large[1] !== null) {
      const grow = large[1] / small[1];
      const statements = large[0] / small[0];
      row(`[ts] tsconfig.json re-resolution, ${large[0]} ÷ ${small[0]} statements`, `${grow.toFixed(2)}× time`, `${statements.toFixed(0)}× statements`, '', 'no faster than the statements', grow <= statements);
    }
  } finally {
    await client.close();
    await daemonStop(root, { env });
  }
}
