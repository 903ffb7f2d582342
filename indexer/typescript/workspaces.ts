// The repository's own packages (docs/tools.md, TypeScript rules): the
// folders that npm/yarn `workspaces` (the root package.json), pnpm
// (`pnpm-workspace.yaml`) or lerna (`lerna.json`) name, each known by the
// `name` in its package.json. Resolution sees them as if installed into the
// root's node_modules (host.ts).
import { dirOf, joinRel, type RepoView } from './view.js';

/** The files at the root that declare workspaces: a change to one re-reads them all. */
export const WORKSPACE_FILES = ['package.json', 'pnpm-workspace.yaml', 'lerna.json'] as const;

/** Whether a change to this file can change the package map: any package.json (a package's name), or a root workspace declaration. */
export function declaresPackages(path: string): boolean {
  return path === 'package.json' || path.endsWith('/package.json') || (WORKSPACE_FILES as readonly string[]).includes(path);
}

/** Package name → its folder (repository-relative), for the packages of the repository. */
export type WorkspacePackages = ReadonlyMap<string, string>;

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try { return JSON.parse(text); } catch { return undefined; }
}

function stringsOf(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** `packages:` of pnpm-workspace.yaml: a block list (`- 'pkgs/*'`) or a flow list (`['a/*', b]`). */
export function pnpmPackages(text: string): string[] {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const unquote = (s: string): string => s.trim().replace(/^(['"])(.*)\1$/, '$2');
  const out: string[] = [];
  const at = lines.findIndex((l) => /^packages\s*:/.test(l));
  if (at < 0) return out;
  const inline = lines[at].replace(/^packages\s*:/, '').replace(/\s+#.*$/, '').trim();
  if (inline.startsWith('[')) {
    return inline.replace(/^\[|\]$/g, '').split(',').map(unquote).filter((s) => s !== '');
  }
  for (const line of lines.slice(at + 1)) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    const m = /^\s+-\s*(.*?)\s*(#.*)?$/.exec(line);
    if (!m) break;
    out.push(unquote(m[1]));
  }
  return out.filter((s) => s !== '');
}

/** The workspace patterns the root declares (negated ones start with `!`). */
function patternsOf(view: RepoView): string[] {
  const pkg = parseJson(view.text('package.json')) as { workspaces?: unknown } | undefined;
  const ws = pkg?.workspaces;
  const patterns = [...stringsOf(ws), ...stringsOf((ws as { packages?: unknown } | undefined)?.packages)];
  const pnpm = view.text('pnpm-workspace.yaml');
  if (pnpm !== undefined) patterns.push(...pnpmPackages(pnpm));
  const lerna = parseJson(view.text('lerna.json')) as { packages?: unknown } | undefined;
  patterns.push(...stringsOf(lerna?.packages));
  return patterns;
}

/** A workspace glob (`packages/*`, `apps/**`, `./tools/cli/`) as a regular expression over folder paths. */
function folderPattern(glob: string): RegExp {
  const segs = glob.replace(/^\.\//, '').replace(/\/+$/, '').split('/');
  const parts = segs.map((seg, i) => {
    const last = i === segs.length - 1;
    if (seg === '**') return last ? '[^/]+(?:/[^/]+)*' : '(?:[^/]+/)*';
    return seg.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + (last ? '' : '/');
  });
  return new RegExp(`^${parts.join('')}$`);
}

/**
 * The packages of the repository: every folder a workspace pattern takes in
 * (and no negated pattern takes out) that holds an indexed package.json with
 * a `name`. Two folders with one name: the first in path order wins.
 */
export function workspacePackages(view: RepoView): WorkspacePackages {
  const patterns = patternsOf(view);
  const packages = new Map<string, string>();
  if (patterns.length === 0) return packages;
  const take = patterns.filter((p) => !p.startsWith('!')).map(folderPattern);
  const drop = patterns.filter((p) => p.startsWith('!')).map((p) => folderPattern(p.slice(1)));
  const folders = [...view.filesNamed('package.json')].map(dirOf).filter((d) => d !== '' && !d.split('/').includes('node_modules')).sort();
  for (const dir of folders) {
    if (!take.some((re) => re.test(dir)) || drop.some((re) => re.test(dir))) continue;
    const name = (parseJson(view.text(joinRel(dir, 'package.json'))) as { name?: unknown } | undefined)?.name;
    if (typeof name === 'string' && name !== '' && !packages.has(name)) packages.set(name, dir);
  }
  return packages;
}

/** The names whose folder differs between two package maps (added, removed or moved). */
export function changedPackages(a: WorkspacePackages, b: WorkspacePackages): string[] {
  const out: string[] = [];
  for (const [name, dir] of a) if (b.get(name) !== dir) out.push(name);
  for (const name of b.keys()) if (!a.has(name)) out.push(name);
  return out;
}

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

/**
 * Whether a package.json on `file`'s folder chain (its folder up to the root)
 * declares `pkg` as a dependency, so that an install puts it in a node_modules
 * folder the compiler looks in from `file` (pnpm: the declaring package's
 * own; npm and yarn: the root's); `read`: the package.json files looked at.
 */
export function declaredDependency(view: RepoView, file: string, pkg: string): { declared: boolean; read: string[] } {
  const read: string[] = [];
  for (let dir = dirOf(file); ; dir = dirOf(dir)) {
    const rel = joinRel(dir, 'package.json');
    const json = parseJson(view.text(rel)) as Record<string, unknown> | undefined;
    if (view.isFile(rel)) read.push(rel);
    const declares = (field: string): boolean => { const deps = json?.[field]; return typeof deps === 'object' && deps !== null && Object.hasOwn(deps, pkg); };
    if (DEPENDENCY_FIELDS.some(declares)) return { declared: true, read };
    if (dir === '') return { declared: false, read };
  }
}

/** Whether a specifier is bare: not relative, absolute or a `#` import (the compiler looks it up by `paths`, self-name and node_modules). */
export function isBareSpecifier(spec: string): boolean {
  return !(spec === '' || spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('#'));
}

/** The package a bare specifier names: `@org/ui/button` → `@org/ui`, `lodash/fp` → `lodash`; null for a relative, absolute or `#` one. */
export function packageNameOf(spec: string): string | null {
  if (!isBareSpecifier(spec)) return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? (parts.length > 1 ? `${parts[0]}/${parts[1]}` : null) : parts[0];
}
