// The `typescript` package, loaded on first use: it is ~9 MB of JavaScript, and
// a process that never meets a TypeScript or JavaScript file (a Python
// repository's daemon, a parse worker given only Python files, the CLI) should
// not pay for it. Every module here takes the compiler from this function.
import { createRequire } from 'node:module';
import type TS from 'typescript';

export type Ts = typeof TS;

const require = createRequire(import.meta.url);
let loaded: Ts | null = null;

export function typescript(): Ts {
  return (loaded ??= require('typescript') as Ts);
}
