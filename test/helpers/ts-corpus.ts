// TypeScript/JavaScript corpora for the differential tests: the bundled
// fixture monorepo and real code nobody here wrote that every machine has after
// `npm ci` (this project's own node_modules), each as a temp git repository,
// and the list of files an index of such a tree holds, worked out from git and
// the product's rules (docs/tools.md, What is indexed) rather than asked of evidex.
import { closeSync, copyFileSync, cpSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { git, PROJECT_ROOT, tempDir } from './fs.js';

/** The bundled fixture monorepo, fixtures/ts-monorepo. */
export const TS_FIXTURE = join(PROJECT_ROOT, 'fixtures', 'ts-monorepo');

const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** The secret names of the rules' fixed list (never indexed). */
const SECRET = /(^|\/)(\.env(\..*)?|[^/]*\.(pem|key|p12|pfx|keystore|jks|tfvars|tfstate)|id_rsa[^/]*|id_ed25519[^/]*|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.pgpass|\.htpasswd|\.envrc|\.aws\/credentials|\.docker\/config\.json|\.kube\/config)$/;

function hasNulAtStart(abs: string): boolean {
  const fd = openSync(abs, 'r');
  try {
    const buf = Buffer.alloc(8192);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).includes(0);
  } finally {
    closeSync(fd);
  }
}

/**
 * The files an index of the git work tree `root` holds: tracked and
 * untracked-not-ignored regular files, minus secrets, binaries and files over
 * 2 MiB, each under its own path; a symbolic link adds no name (what it leads
 * to is listed under its real path, as git lists it).
 */
export function indexedFiles(root: string): string[] {
  const listed = git(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']).split('\0').filter((f) => f !== '');
  const usable = (abs: string): boolean => {
    const st = statSync(abs);
    return st.isFile() && st.size <= MAX_FILE_BYTES && !hasNulAtStart(abs);
  };
  return listed.filter((f) => !SECRET.test(f) && lstatOrNull(join(root, f))?.isFile() === true && usable(join(root, f))).sort();
}

function lstatOrNull(abs: string): Stats | null {
  try { return lstatSync(abs); } catch { return null; }
}

function gitRepo(root: string, commit: boolean): void {
  git(root, ['init', '-q']);
  if (commit) { git(root, ['add', '-A']); git(root, ['commit', '-qm', 'corpus']); }
}

/** A committed copy of the fixture monorepo in a fresh temp folder (outside this repository, so only its own .gitignore applies). */
export function fixtureRepo(): string {
  const root = join(tempDir('tsfx'), 'ts-monorepo');
  cpSync(TS_FIXTURE, root, { recursive: true, verbatimSymlinks: true });
  gitRepo(root, true);
  return root;
}

/** The packages of this project's node_modules the corpus takes, and the folder each becomes. */
export const NODE_MODULES_PACKAGES: Array<[pkg: string, folder: string]> = [
  ['zod', 'zod'], ['typescript', 'typescript'], ['@modelcontextprotocol/sdk', 'mcp-sdk'], ['ollama', 'ollama'], ['ws', 'ws'], ['chokidar', 'chokidar'],
];

const CORPUS_FILE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$|(^|\/)package\.json$/;

/**
 * This project's installed packages as a workspace monorepo: each package's
 * TS/JS files and package.json files copied into `packages/<folder>/` (a
 * node_modules folder would be left out of any index), a root package.json
 * naming them as workspaces, a git work tree. Files over 2 MiB are not copied
 * (no index holds them).
 */
export function nodeModulesRepo(packages = NODE_MODULES_PACKAGES): { root: string; files: number; bytes: number } {
  const root = join(tempDir('tsnm'), 'corpus');
  let files = 0, bytes = 0;
  const copy = (src: string, dest: string, rel: string): void => {
    for (const e of readdirSync(src, { withFileTypes: true })) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) { if (e.name !== 'node_modules') copy(join(src, e.name), join(dest, e.name), r); continue; }
      if (!e.isFile() || !CORPUS_FILE.test(r)) continue;
      const size = lstatSync(join(src, e.name)).size;
      if (size > MAX_FILE_BYTES) continue;
      mkdirSync(dest, { recursive: true });
      copyFileSync(join(src, e.name), join(dest, e.name));
      files++; bytes += size;
    }
  };
  for (const [pkg, folder] of packages) copy(join(PROJECT_ROOT, 'node_modules', pkg), join(root, 'packages', folder), '');
  mkdirSync(dirname(join(root, 'package.json')), { recursive: true });
  writeFileSync(join(root, 'package.json'), `${JSON.stringify({ name: 'node-modules-corpus', private: true, workspaces: ['packages/*'] }, null, 2)}\n`);
  gitRepo(root, false);
  return { root, files, bytes };
}
