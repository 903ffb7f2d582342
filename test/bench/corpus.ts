// The benchmark corpora, built from the machine's own python3 at run time:
// `stdlib` is every .py file of the standard library (site-packages left out),
// `large` every .py file of site-packages. Files are copied into a temp folder so
// evidex and every reference read exactly the same tree. `fixture` is the
// bundled fixture repository, committed into a fresh git repository.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Corpus { name: string; source: string; root: string; files: string[]; lines: number; bytes: number }

function pythonPaths(): { stdlib: string; purelib: string } {
  const out = execFileSync('python3', ['-c', "import sysconfig,json; p=sysconfig.get_paths(); print(json.dumps({'stdlib': p['stdlib'], 'purelib': p['purelib']}))"], { encoding: 'utf8' });
  return JSON.parse(out) as { stdlib: string; purelib: string };
}

function listPy(dir: string, skip: (rel: string) => boolean, base = dir, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    const rel = relative(base, p);
    if (skip(rel)) continue;
    if (e.isDirectory()) listPy(p, skip, base, out);
    else if (e.isFile() && e.name.endsWith('.py')) out.push(rel);
  }
  return out;
}

/** A git repository (one commit) holding a copy of the bundled fixture, in a temp folder of its own: `<temp>/repo`. */
export function fixtureRepo(prefix: string): string {
  const fixture = fileURLToPath(new URL('../../../fixtures/mobileai-local-rag', import.meta.url));
  const repo = join(mkdtempSync(join(tmpdir(), prefix)), 'repo');
  cpSync(fixture, repo, { recursive: true, verbatimSymlinks: true });
  const git = (...a: string[]) => execFileSync('git', a, { cwd: repo, stdio: 'ignore' });
  git('init', '-q'); git('add', '-A'); git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-qm', 'fixture');
  return repo;
}

/** The fixture as a corpus: its .py files (the ones queries are drawn from). */
export function fixtureCorpus(): Corpus {
  const root = fixtureRepo('evidex-bench-fixture-');
  return measured('fixture', root, root, listPy(root, (rel) => rel === '.git').sort());
}

function measured(name: string, source: string, root: string, files: string[]): Corpus {
  let lines = 0;
  let bytes = 0;
  for (const rel of files) {
    const buf = readFileSync(join(root, rel));
    bytes += buf.length;
    for (let i = 0; i < buf.length; i++) if (buf[i] === 10) lines++;
  }
  return { name, source, root, files, lines, bytes };
}

export function makeCorpus(kind: 'stdlib' | 'large'): Corpus {
  const paths = pythonPaths();
  const source = kind === 'stdlib' ? paths.stdlib : paths.purelib;
  const skip = kind === 'stdlib'
    ? (rel: string) => rel === 'site-packages' || rel.endsWith('__pycache__')
    : (rel: string) => rel.endsWith('__pycache__');
  const files = listPy(source, skip).sort();
  const root = mkdtempSync(join(tmpdir(), `evidex-bench-${kind}-`));
  for (const rel of files) {
    const dest = join(root, rel);
    mkdirSync(dirname(dest), { recursive: true });
    copyFileSync(join(source, rel), dest);
  }
  return measured(kind, source, root, files);
}
