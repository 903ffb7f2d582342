// The repository's own packages, found as a package manager finds them (npm
// and yarn `workspaces`, `pnpm-workspace.yaml`, `lerna.json`), and the build
// output they name that is not in the tree, mapped to the source a developer
// would open. The oracle links these packages into a temporary node_modules,
// as an install would, and lets the compiler resolve through the links.
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';

export interface WorkspacePackage { name: string; dir: string }

/** A workspace glob (`packages/*`, `apps/**`, `docs`) as a test of folder paths: `*` is part of one folder name, `**` any number of folders. */
function globMatcher(pattern: string): (dir: string) => boolean {
  const segs = pattern.replace(/^\.\//, '').replace(/\/+$/, '').split('/');
  const body = segs.map((s) => (s === '**' ? '(?:[^/]+/)*' : `${s.split('*').map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}/`)).join('');
  const re = new RegExp(`^${body}$`);
  return (dir) => re.test(`${dir}/`);
}

function readJson(path: string): unknown {
  try { return JSON.parse(readFileSync(path, 'utf8')); } catch { return undefined; }
}

/** The `packages:` list of a pnpm-workspace.yaml (the one key the oracle needs; quoted or bare items). */
function pnpmPatterns(text: string): string[] {
  const out: string[] = [];
  let inPackages = false;
  for (const line of text.split('\n')) {
    if (/^packages:\s*$/.test(line)) { inPackages = true; continue; }
    if (inPackages) {
      const m = /^\s+-\s*(['"]?)(.*?)\1\s*(#.*)?$/.exec(line);
      if (m) out.push(m[2]);
      else if (/^\S/.test(line)) inPackages = false;
    }
  }
  return out;
}

/** Workspace patterns from every source a package manager reads at the root. */
export function workspacePatterns(root: string): string[] {
  const patterns: string[] = [];
  const pkg = readJson(join(root, 'package.json')) as { workspaces?: string[] | { packages?: string[] } } | undefined;
  const ws = pkg?.workspaces;
  if (Array.isArray(ws)) patterns.push(...ws);
  else if (ws && Array.isArray(ws.packages)) patterns.push(...ws.packages);
  if (existsSync(join(root, 'pnpm-workspace.yaml'))) patterns.push(...pnpmPatterns(readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')));
  const lerna = readJson(join(root, 'lerna.json')) as { packages?: string[] } | undefined;
  if (Array.isArray(lerna?.packages)) patterns.push(...lerna.packages);
  return patterns.filter((p) => typeof p === 'string');
}

/** The named packages among the indexed `package.json` files whose folder a workspace pattern takes in (and no `!pattern` leaves out). */
export function workspacePackages(root: string, files: readonly string[]): WorkspacePackage[] {
  const patterns = workspacePatterns(root);
  const take = patterns.filter((p) => !p.startsWith('!')).map(globMatcher);
  const drop = patterns.filter((p) => p.startsWith('!')).map((p) => globMatcher(p.slice(1)));
  const out: WorkspacePackage[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    if (f !== 'package.json' && !f.endsWith('/package.json')) continue;
    const dir = posix.dirname(f);
    if (dir === '.' || f.split('/').includes('node_modules')) continue;
    if (!take.some((m) => m(dir)) || drop.some((m) => m(dir))) continue;
    const name = (readJson(join(root, f)) as { name?: unknown } | undefined)?.name;
    if (typeof name !== 'string' || name === '' || seen.has(name)) continue;
    seen.add(name);
    out.push({ name, dir });
  }
  return out;
}

/**
 * The source forms a build output file may come from, in the order they are
 * tried, or null when `file` is no build output: first the TypeScript source
 * the compiler emits that form from, then the `.ts`/`.tsx` a bundler emits
 * every module form from, then the same two steps for JavaScript sources
 * (`tsc` under `allowJs`, Babel, a bundler). `.jsx` output is only ever the
 * compiler's `jsx: preserve` form.
 */
function sourceForms(file: string): { stem: string; exts: string[] } | null {
  const m = /^(.*?)(\.d\.ts|\.d\.mts|\.d\.cts|\.js|\.mjs|\.cjs|\.jsx)$/.exec(file);
  if (!m) return null;
  const out = m[2];
  if (out === '.jsx') return { stem: m[1], exts: ['.tsx', '.jsx'] };
  // The module-format letter of the output: 'm' (ESM), 'c' (CommonJS) or none.
  const format = out.endsWith('mts') || out.endsWith('mjs') ? 'm' : out.endsWith('cts') || out.endsWith('cjs') ? 'c' : '';
  const ownTs = format === '' ? ['.ts', '.tsx'] : [`.${format}ts`];
  const ownJs = format === '' ? ['.js', '.jsx'] : [`.${format}js`];
  const exts = [...ownTs, '.ts', '.tsx', ...ownJs, '.js', '.jsx'];
  return { stem: m[1], exts: exts.filter((e, i) => exts.indexOf(e) === i) };
}

/**
 * A package's build-output layout: its out folders, each with the folder its
 * sources live in — the tsconfig's `outDir` (read by the compiler with
 * `extends`), when inside the package folder, with its `rootDir` and then
 * `src/`; and every other top folder of the paths its package.json
 * `exports`/`types`/`typings`/`main`/`module` name, with `src/`.
 */
export interface BuildLayout { outs: Array<{ out: string; srcDir: string }> }

/** Every path string in a package.json field (exports' nested condition maps and arrays included). */
function fieldPaths(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) fieldPaths(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) fieldPaths(x, out);
  return out;
}

export function buildLayout(pkgAbs: string): BuildLayout {
  const outs: BuildLayout['outs'] = [];
  const cfg = join(pkgAbs, 'tsconfig.json');
  if (existsSync(cfg)) {
    // rootDir counts only beside an outDir: the pair says where output comes from.
    const parsed = ts.parseJsonSourceFileConfigFileContent(ts.readJsonConfigFile(cfg, ts.sys.readFile), ts.sys, pkgAbs, undefined, cfg);
    const rel = (p: string | undefined): string | null => (p ? posix.relative(pkgAbs, p) : null);
    const outDir = rel(parsed.options.outDir);
    // package.json can name nothing outside the package: an outDir there (one a root config lends) is no layout of it.
    const outside = outDir !== null && (outDir === '..' || outDir.startsWith('../'));
    const rootDir = rel(parsed.options.rootDir) ?? 'src';
    // Then src: a config type-checking the whole package (`rootDir: "."`) is not what a bundler builds dist from.
    if (outDir !== null && !outside) outs.push({ out: outDir, srcDir: rootDir }, ...(rootDir === 'src' ? [] : [{ out: outDir, srcDir: 'src' }]));
  }
  const pkg = readJson(join(pkgAbs, 'package.json')) as Record<string, unknown> | undefined;
  const named = ['exports', 'types', 'typings', 'main', 'module'].flatMap((k) => fieldPaths(pkg?.[k]));
  for (const p of named) {
    const parts = p.replace(/^\.\//, '').split('/');
    if (parts.length < 2 || parts[0] === '' || parts[0] === '..') continue;
    if (!outs.some((o) => o.out === parts[0])) outs.push({ out: parts[0], srcDir: 'src' });
  }
  return { outs };
}

/** The out folders of the layout that `rel` (a path inside the package) lies in, when that folder is not in the tree, in layout order. */
function missingOutDirs(pkgAbs: string, rel: string, layout: BuildLayout, isDir: (abs: string) => boolean): BuildLayout['outs'] {
  return layout.outs.filter((o) => o.out !== '' && o.out !== '.' && !o.out.startsWith('..')
    && (rel === o.out || rel.startsWith(`${o.out}/`)) && !isDir(join(pkgAbs, o.out)));
}

/**
 * Where under the source folder output path `sub` (below its out folder) may
 * come from, in order: the same place, then with one more leading folder
 * dropped each time — an output variant's folder (`modern/`, `esm/`) that
 * bundlers add and the source tree has not; a folder's path may lose every
 * part (the source folder itself). A part with a dot in its name is never a
 * variant (the compiler also probes `dist/x.cjs.js` as a folder): dropping
 * stops there.
 */
function placesFor(sub: string, folder: boolean): string[] {
  const parts = sub.split('/');
  const places: string[] = [];
  for (let k = 0; k < parts.length || (folder && k === parts.length); k++) {
    places.push(parts.slice(k).join('/'));
    if (parts[k]?.includes('.')) break;
  }
  return places;
}

/**
 * The source file for a path of build output inside a package (`rel`, relative
 * to the package folder), or null: the path lies under one of the package's out
 * folders, that folder is not in the tree, and a source of one of its forms
 * (sourceForms, the first that exists) is at one of its places (placesFor, in
 * order) under that out folder's source folder.
 */
export function sourceForOutput(pkgAbs: string, rel: string, layout: BuildLayout, exists: (abs: string) => boolean, isDir: (abs: string) => boolean): string | null {
  for (const o of missingOutDirs(pkgAbs, rel, layout, isDir)) {
    if (rel === o.out) continue;
    for (const place of placesFor(rel.slice(o.out.length + 1), false)) {
      const forms = sourceForms(place);
      if (forms === null) return null;
      for (const ext of forms.exts) {
        const src = posix.join(o.srcDir, `${forms.stem}${ext}`);
        if (exists(join(pkgAbs, src))) return src;
      }
    }
  }
  return null;
}

/** A folder of build output that would exist: a folder under a missing out folder whose source folder (the same place, or a shorter one as placesFor drops variants, or the source folder itself) exists. */
export function sourceDirForOutput(pkgAbs: string, rel: string, layout: BuildLayout, isDir: (abs: string) => boolean): string | null {
  for (const o of missingOutDirs(pkgAbs, rel, layout, isDir)) {
    for (const place of rel === o.out ? [''] : placesFor(rel.slice(o.out.length + 1), true)) {
      const src = posix.join(o.srcDir, place);
      if (isDir(join(pkgAbs, src))) return src;
    }
  }
  return null;
}
