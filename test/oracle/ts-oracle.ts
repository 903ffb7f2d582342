// The TypeScript/JavaScript oracle over a whole tree: for every indexed
// TS/JS file, its definitions and import statements (ts-extract.ts) and each
// statement's target by the compiler's resolution (ts-resolve.ts) under the
// file's governing config (ts-configs.ts), with the repository's workspace
// packages linked as an install links them (ts-workspaces.ts). Built from the
// product's rules and the `typescript` package alone; nothing here reads
// evidex's indexer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ConfigFinder } from './ts-configs.js';
import { extractTsJs, isTsJsPath, type OracleDef, type StatementForm } from './ts-extract.js';
import { OracleTree, type Resolution } from './ts-resolve.js';
import { workspacePackages, type WorkspacePackage } from './ts-workspaces.js';

export interface OracleStatementAnswer extends Resolution {
  start: number; end: number; spec: string; form: StatementForm; reexport: boolean;
}

export interface OracleFileAnswer {
  path: string;
  /** The governing config (root-relative), or null for the compiler's defaults. */
  config: string | null;
  /** How many syntax errors the compiler's parser reported (the AST is still the compiler's). */
  parseErrors: number;
  defs: OracleDef[];
  statements: OracleStatementAnswer[];
}

export interface OracleAnswer { files: OracleFileAnswer[]; packages: WorkspacePackage[]; ms: { parse: number; resolve: number } }

/** File text as evidex reads it: UTF-8, invalid bytes as U+FFFD; the byte-order mark is dropped, as the compiler drops it. */
export function decodeFile(buf: Buffer): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(buf);
}

/**
 * Runs the oracle over `files` (every indexed file of `root`, POSIX paths
 * relative to it: the copy it resolves on holds exactly these) and answers
 * for the TS/JS files among them, in order.
 */
export function runTsOracle(root: string, files: readonly string[]): OracleAnswer {
  const packages = workspacePackages(root, files);
  const tree = new OracleTree(root, files, packages);
  const ms = { parse: 0, resolve: 0 };
  try {
    const configs = new ConfigFinder(tree.copy);
    const out: OracleFileAnswer[] = [];
    for (const path of files) {
      if (!isTsJsPath(path)) continue;
      const t0 = performance.now();
      const gov = configs.governing(join(tree.copy, path));
      const text = decodeFile(readFileSync(join(root, path)));
      const ex = extractTsJs(path, text, { impliedNodeFormat: tree.impliedNodeFormat(path, gov) });
      const t1 = performance.now();
      const statements = ex.statements.map(({ literal, ...s }) => ({ ...s, ...tree.resolve(path, ex.sourceFile, literal, gov) }));
      const t2 = performance.now();
      ms.parse += t1 - t0;
      ms.resolve += t2 - t1;
      const parseErrors = (ex.sourceFile as ts.SourceFile & { parseDiagnostics?: unknown[] }).parseDiagnostics?.length ?? 0;
      out.push({ path, config: gov.config, parseErrors, defs: ex.defs, statements });
    }
    return { files: out, packages, ms };
  } finally {
    tree.dispose();
  }
}
