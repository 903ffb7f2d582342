// The targets a TypeScript/JavaScript import statement is looked up by
// (docs/architecture.md, TypeScript resolution). Python's targets are dotted
// module names, which never start with `.` or `:`, so the three kinds never meet.
import { packageNameOf } from './workspaces.js';

/** The target naming the file a statement resolves to: `./` and its path. */
export const fileTarget = (path: string): string => `./${path}`;

/** The target naming a specifier or a leading part of it: `:` and the part (`:@org/ui`, `:@org/ui/button`). */
export const specTarget = (spec: string): string => `:${spec}`;

/**
 * The targets a bare or `#` specifier gives its statement (docs/tools.md,
 * find_importers: a package name or subpath, or a package.json `imports`
 * name, matches the specifier or a leading part of it up to a `/`):
 * `@org/ui/button` → `:@org`, `:@org/ui`, `:@org/ui/button`;
 * `#internal/log` → `:#internal`, `:#internal/log`. None for a relative or
 * absolute specifier: those name files, found by the file they resolve to.
 */
export function specTargets(spec: string): string[] {
  if (packageNameOf(spec) === null && !(spec.startsWith('#') && spec.length > 1)) return [];
  const out: string[] = [];
  for (let i = spec.indexOf('/'); i > 0; i = spec.indexOf('/', i + 1)) out.push(specTarget(spec.slice(0, i)));
  out.push(specTarget(spec));
  return out;
}

/** A target as a caller would name it: `./src/a.ts` → `src/a.ts`, `:react` → `react`, a Python module as it is. */
export function targetName(target: string): string {
  return target.startsWith('./') ? target.slice(2) : target.startsWith(':') ? target.slice(1) : target;
}
