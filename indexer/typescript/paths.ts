// Which files are TypeScript or JavaScript (docs/tools.md, TypeScript rules),
// and how the compiler parses each: pure string functions, so the query layer
// and the builder can ask without loading the `typescript` package.

/** The extensions that get definitions and imports, longest first where one ends another. */
const TS_JS_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'] as const;

/** `.ts .tsx .mts .cts .js .jsx .mjs .cjs`, and so `.d.ts`, `.d.mts`, `.d.cts` too. */
export function isTsJsPath(relPath: string): boolean {
  const dot = relPath.lastIndexOf('.');
  if (dot < 0 || dot < relPath.lastIndexOf('/')) return false;
  return (TS_JS_EXTENSIONS as readonly string[]).includes(relPath.slice(dot));
}

/**
 * Whether a TypeScript or JavaScript file is the module `name` names as a
 * namespace import usually does (`import * as Effect from "effect/Effect"`):
 * its name is `name` with a TS/JS extension (`Effect.ts`, `Effect.d.ts`), or
 * it is the index file of a folder `name/` (`Effect/index.ts`).
 */
export function isModuleFileOf(relPath: string, name: string): boolean {
  if (!isTsJsPath(relPath)) return false;
  const slash = relPath.lastIndexOf('/');
  const base = relPath.slice(slash + 1).replace(/(?:\.d)?\.[^.]+$/, '');
  if (base === name) return true;
  return base === 'index' && relPath.slice(relPath.lastIndexOf('/', slash - 1) + 1, Math.max(slash, 0)) === name;
}

/**
 * How the compiler parses a file of this name (its ScriptKind): `.tsx` as
 * TSX, `.jsx` as JSX, `.js`/`.mjs`/`.cjs` as JS (which allows JSX, as in the
 * compiler), everything else (`.ts`, `.mts`, `.cts`, declaration files) as TS.
 */
export type ScriptKindName = 'ts' | 'tsx' | 'js' | 'jsx';

export function scriptKindOf(relPath: string): ScriptKindName {
  const ext = relPath.slice(relPath.lastIndexOf('.'));
  switch (ext) {
    case '.tsx': return 'tsx';
    case '.jsx': return 'jsx';
    case '.js': case '.mjs': case '.cjs': return 'js';
    default: return 'ts';
  }
}

/** Files whose text decides how imports resolve: a change to one re-resolves the statements it governs. */
export function isResolutionInput(relPath: string): boolean {
  const name = relPath.slice(relPath.lastIndexOf('/') + 1);
  return name === 'package.json' || name === 'jsconfig.json' || name === 'pnpm-workspace.yaml' || name === 'lerna.json'
    || (name.startsWith('tsconfig') && name.endsWith('.json'));
}
