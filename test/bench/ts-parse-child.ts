// Child process of the benchmark: the reference for a cold TypeScript index —
// the compiler's own parser (`ts.createSourceFile`) over every file named on
// stdin (POSIX paths under argv[2]), reading included, in one fresh process,
// as the Python rows time `ast.parse` in one python3. Prints the seconds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { scriptKindOf } from '../oracle/ts-extract.js';

const root = process.argv[2];
const files = readFileSync(0, 'utf8').split('\n').filter((f) => f !== '');
const t0 = performance.now();
let nodes = 0;
for (const f of files) {
  const sf = ts.createSourceFile(f, readFileSync(join(root, f), 'utf8'), ts.ScriptTarget.Latest, false, scriptKindOf(f));
  nodes += sf.statements.length;
}
process.stdout.write(`${JSON.stringify({ seconds: (performance.now() - t0) / 1000, files: files.length, statements: nodes })}\n`);
