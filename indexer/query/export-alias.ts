// find_symbol's note on a name that is only an export alias (docs/tools.md,
// find_symbol, Notes): hono's `export { Hono as HonoBase }` defines nothing
// (section 3b), so `HonoBase` finds no definition, and a bare 0 reads as "no
// such thing" to a model that saw `HonoBase` imported. The note names the
// alias and the definition it stands for. Nothing is stored for it: the
// lines that write `as NAME` are found by search_code's own scan (the
// trigram plan keeps it to the blocks that can hold them), and only their
// files are parsed, by the compiler, to tell an export specifier from an
// import's alias or a comment.
import type TS from 'typescript';
import { isTsImport } from '../model.js';
import type { DefinitionHit, Store } from '../store/store.js';
import { typescript } from '../typescript/load.js';
import { parseSource } from '../typescript/extract.js';
import { isTsJsPath } from '../typescript/paths.js';
import { joinWorded, worded, type Note } from './notes.js';
import type { ToolResult } from './schemas.js';

/** Files whose `as NAME` lines are parsed, and aliases named in one note. */
const FILES_PARSED = 10;
const ALIASES_NAMED = 3;
/** Lines looked at that write `as NAME`. */
export const ALIAS_LINES = 50;

/** A name an export alias can have: an identifier (not `default`, which names a default export). */
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** One `export { local as name }` (or `… } from "spec"`) at `line` of `path`. */
interface Alias { path: string; fid: number; line: number; name: string; local: string; spec?: string }

/** Whether find_symbol's empty answer for `name` is worth a look for export aliases. */
export function mayBeAlias(name: string): boolean {
  return IDENTIFIER.test(name) && name !== 'default';
}

/**
 * The note for `name` from `lines` (search_code's case-sensitive answer for
 * `as NAME`): each export alias of that name in a TypeScript or JavaScript
 * file, and the definition(s) of what it stands for (in its own file, or in
 * the file its `from` specifier resolved to). Null when none of the lines is
 * an export alias.
 */
export function exportAliasNote(store: Store, name: string, lines: ToolResult): Note | null {
  const files = [...new Set(lines.evidence.map((e) => e.path))].filter(isTsJsPath).slice(0, FILES_PARSED);
  const aliases: Alias[] = [];
  for (const path of files) {
    const f = store.fileByPath(path);
    const text = f === undefined ? undefined : store.text(f.fid);
    if (f === undefined || text === undefined) continue;
    aliases.push(...aliasesIn(store, path, f.fid, text, name));
  }
  if (aliases.length === 0) return null;
  const paths: string[] = [];
  const said = aliases.slice(0, ALIASES_NAMED).map((a) => {
    paths.push(a.path);
    const defs = definitionsOf(store, a);
    const where = defs.map((d) => {
      const p = store.file(d.fid)!.path;
      paths.push(p);
      return `${d.qualname} (${p}:${d.start})`;
    });
    const its = where.length ? worded`its definition: ${where.join(', ')}` : worded`${{ name: 'find_symbol', arguments: { name: a.local } }} finds what it stands for`;
    return worded`${name} is an export alias of ${a.local} (${a.path}:${a.line})${a.spec === undefined ? '' : `, re-exported from ${JSON.stringify(a.spec)}`}; ${its}`;
  });
  if (aliases.length > said.length) said.push(worded`${aliases.length - said.length} more export alias${aliases.length - said.length === 1 ? '' : 'es'}`);
  return { ...worded`no definition is named ${JSON.stringify(name)} (an export alias defines nothing): ${joinWorded(said, '; ')}`, paths };
}

/**
 * Each file's export aliases as of the store's generation: parsing a file
 * costs milliseconds (9 ms a call for hono's src/hono-base.ts), and a model
 * asks again; kept only for the files asked about.
 */
const parsed = new WeakMap<Store, { generation: number; byFid: Map<number, Alias[]> }>();

/** The export specifiers of file `fid` that export something as `name`. */
function aliasesIn(store: Store, path: string, fid: number, text: string, name: string): Alias[] {
  let seen = parsed.get(store);
  if (seen === undefined || seen.generation !== store.generation) parsed.set(store, seen = { generation: store.generation, byFid: new Map() });
  let all = seen.byFid.get(fid);
  if (all === undefined) seen.byFid.set(fid, all = exportAliases(path, fid, text));
  return all.filter((a) => a.name === name);
}

/** Every export specifier of `text` with an alias (`export { local as name }`), at any depth of namespaces. */
function exportAliases(path: string, fid: number, text: string): Alias[] {
  const ts = typescript();
  const sf = parseSource(ts, path, text, false);
  const out: Alias[] = [];
  const visit = (statements: TS.NodeArray<TS.Statement>): void => {
    for (const s of statements) {
      if (ts.isModuleDeclaration(s) && s.body && ts.isModuleBlock(s.body)) visit(s.body.statements);
      if (!ts.isExportDeclaration(s) || !s.exportClause || !ts.isNamedExports(s.exportClause)) continue;
      const spec = s.moduleSpecifier && ts.isStringLiteralLike(s.moduleSpecifier) ? s.moduleSpecifier.text : undefined;
      for (const e of s.exportClause.elements) {
        if (e.propertyName === undefined) continue;
        const line = sf.getLineAndCharacterOfPosition(e.getStart(sf)).line + 1;
        out.push({ path, fid, line, name: e.name.text, local: e.propertyName.text, ...(spec === undefined ? {} : { spec }) });
      }
    }
  };
  visit(sf.statements);
  return out;
}

/** The definitions an alias stands for: `local` defined in its own file, or, re-exported `from` a specifier, in the file(s) that statement resolved to. */
function definitionsOf(store: Store, a: Alias): DefinitionHit[] {
  const fids = new Set<number>();
  if (a.spec === undefined) fids.add(a.fid);
  else {
    for (const rec of store.imports(a.fid)) {
      if (!isTsImport(rec.raw) || rec.raw.spec !== a.spec) continue;
      for (const t of rec.targets) if (t.startsWith('./')) { const f = store.fileByPath(t.slice(2)); if (f) fids.add(f.fid); }
    }
  }
  const all = store.plan.definitions(a.local, { quals: [] }, { offset: 0, end: Number.MAX_SAFE_INTEGER }).hits;
  return all.filter((h) => fids.has(h.fid) && h.qualname === a.local).slice(0, ALIASES_NAMED);
}
