// The oracle's resolution checked against the compiler's own Program, as
// `tsc -p` builds it: one `ts.createProgram` per governing config (read by
// `ts.getParsedCommandLineOfConfigFile`; the compiler's defaults for files no
// config takes in), on a copy of the indexed files with the workspace
// packages linked as an install links them — pnpm's way (each package's
// declared dependencies on repository packages in its own node_modules) or
// hoisted (every repository package in the root's) — and no build output
// mapped to source. Each statement the oracle lists is looked up among the
// module specifiers the program resolved for its file.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { DEFAULT_OPTIONS } from './ts-configs.js';
import { decodeFile, type OracleAnswer } from './ts-oracle.js';
import { NewlineLines } from './ts-extract.js';
import { copyTree } from './ts-resolve.js';

export type InstallLayout = 'pnpm' | 'hoisted';

export interface ProgramCheck {
  layout: InstallLayout; links: number; agree: number;
  /** `path:line spec: program X, oracle Y`, one per statement the two answer differently. */
  differ: string[];
  /** Statements of the rules the program does not resolve (a `require()` call in a TypeScript file). */
  notInProgram: string[];
  /** Statements the oracle resolves through build output the tree lacks, which the program finds nowhere (not compared). */
  mapped: number;
}

/** What the compiler's program answers for one resolved specifier: `Program.getResolvedModule`, present in the pinned 5.x. */
interface ProgramInternals { getResolvedModule(sf: ts.SourceFile, name: string, mode: ts.ResolutionMode): ts.ResolvedModuleWithFailedLookupLocations | undefined }
interface SourceFileInternals { imports: readonly ts.StringLiteralLike[] }

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

export function programCheck(root: string, files: readonly string[], oracle: OracleAnswer, layout: InstallLayout): ProgramCheck {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'evidex-tsprogram-')));
  const copy = join(base, 'repo');
  try {
    copyTree(root, copy, files);
    const dirs = new Map(oracle.packages.map((p) => [p.name, p.dir]));
    let links = 0;
    const link = (fromDir: string, name: string): void => {
      const at = join(copy, fromDir, 'node_modules', name);
      if (existsSync(at)) return;
      mkdirSync(dirname(at), { recursive: true });
      symlinkSync(relative(dirname(at), join(copy, dirs.get(name)!)), at, 'dir');
      links++;
    };
    if (layout === 'hoisted') for (const name of dirs.keys()) link('.', name);
    else {
      for (const dir of ['.', ...oracle.packages.map((p) => p.dir)]) {
        let pkg: Record<string, unknown> = {};
        try { pkg = JSON.parse(readFileSync(join(copy, dir, 'package.json'), 'utf8')) as Record<string, unknown>; } catch { /* none, or not JSON */ }
        for (const f of DEPENDENCY_FIELDS) for (const name of Object.keys((pkg[f] as object | undefined) ?? {})) if (dirs.has(name)) link(dir, name);
      }
    }
    const out: ProgramCheck = { layout, links, agree: 0, differ: [], notInProgram: [], mapped: 0 };
    const byConfig = new Map<string | null, OracleAnswer['files']>();
    for (const f of oracle.files) byConfig.set(f.config, [...(byConfig.get(f.config) ?? []), f]);
    for (const [config, fs] of byConfig) {
      const parsed = config === null ? null : ts.getParsedCommandLineOfConfigFile(join(copy, config), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
      const options = parsed?.options ?? DEFAULT_OPTIONS;
      const rootNames = parsed?.fileNames ?? fs.map((f) => join(copy, f.path));
      const program = ts.createProgram({ rootNames, options }) as ts.Program & ProgramInternals;
      for (const f of fs) {
        const sf = program.getSourceFile(join(copy, f.path));
        if (!sf) { out.notInProgram.push(`${f.path}: not in the program of ${config ?? 'the defaults'}`); continue; }
        const lines = new NewlineLines(decodeFile(readFileSync(join(copy, f.path))));
        const answers = new Map<string, string | null>();
        for (const lit of (sf as ts.SourceFile & SourceFileInternals).imports) {
          if (lit.pos < 0) continue; // one the compiler adds (`react/jsx-runtime` under `jsx: react-jsx`), written nowhere
          const file = program.getResolvedModule(sf, lit.text, ts.getModeForUsageLocation(sf, lit, options))?.resolvedModule?.resolvedFileName;
          let target: string | null = null;
          if (file) {
            const rel = relative(copy, realpathSync(file)).split('\\').join('/');
            target = rel.startsWith('..') || rel.split('/').includes('node_modules') ? null : rel;
          }
          answers.set(`${lines.lineOf(lit.getStart(sf))} ${lit.text}`, target);
        }
        for (const s of f.statements) {
          let key: string | undefined;
          for (let l = s.start; l <= s.end && key === undefined; l++) if (answers.has(`${l} ${s.spec}`)) key = `${l} ${s.spec}`;
          const what = `${f.path}:${s.start} ${s.form} ${JSON.stringify(s.spec)}`;
          if (key === undefined) { out.notInProgram.push(`${what} (the oracle: ${s.target ?? 'nowhere'})`); continue; }
          const t = answers.get(key) ?? null;
          if (t === null && s.mapped) out.mapped++;
          else if (t === s.target) out.agree++;
          else out.differ.push(`${what} [${config ?? 'defaults'}]: program ${t ?? 'nowhere'}, oracle ${s.target ?? 'nowhere'}`);
        }
      }
    }
    return out;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
