// Near misses for find_symbol (docs/tools.md, Suggestions): when a name
// finds nothing, the definitions it most likely meant, chosen only from the
// index's own records, in a fixed order, so the same question gets the same
// suggestions on every run. A small model guesses names all the time —
// `typechecker`, `Flask.route` (inherited from `Scaffold.route`),
// `httpx.Client` (re-exported by `from ._client import *`) — and `0 of 0`
// teaches it nothing.
//
// The order: definitions the name matches once kind and path_prefix are
// dropped; definitions the name reaches through re-exports (`from P import *`,
// `from P import N`); a TypeScript module's export as a namespace import
// writes it (`Effect.map`: `map` of Effect.ts); members a class inherits,
// base classes nearest first; then names spelled alike — the same in another case, then within a small
// edit distance, then longer names it begins — nearest first.
import { escapeRegExp } from '../../local/regexp.js';
import { isPythonPath } from '../python/modules.js';
import type { DefinitionHit, Store } from '../store/store.js';
import { baseNames } from './bases.js';
import { allowedDistance, distanceWithin } from '../../local/distance.js';
import { moduleQualified } from './qualified.js';
import { pyBindings, pyReexportChains } from './py-reexports.js';
import { withNote, type Note } from './notes.js';
import { prefixIsWhy } from './prefix-note.js';
import type { Suggestion, ToolArgs, ToolResult } from './schemas.js';
import { isModuleFileOf } from '../typescript/paths.js';
import { SUGGESTIONS_MAX } from './limits.js';

/** How many base-class levels are followed. */
const MAX_BASE_DEPTH = 8;
/** Names spelled alike considered (nearest first) before their definitions are looked up. */
const MAX_ALIKE_NAMES = 64;
/** A header is read this far to find a class's bases. */
const HEADER_LINES = 40;

/** find_symbol's answer, with suggestions when it found nothing, and a note when the name's owner is an interface or type alias. */
export function withSymbolSuggestions(store: Store, args: ToolArgs['find_symbol'], result: ToolResult): ToolResult {
  if (result.total > 0) return result;
  const filtered = args.kind !== undefined || args.path_prefix !== undefined;
  // Nothing in the index is under path_prefix: where the name is outside it, and nothing that reads the name as wrong (prefix-note.ts).
  const prefixWhy = prefixIsWhy(store, args.path_prefix, result.total);
  const suggester = new SymbolSuggester(store);
  const suggestions = suggester.suggest(args.name, filtered, prefixWhy);
  const noted = prefixWhy || suggestions.some((s) => s.why === 'module') ? result : withNote(result, suggester.typeOwnerNote(args.name));
  return suggestions.length ? { ...noted, suggestions } : noted;
}

/** Places of an owner's interfaces and type aliases named in its note. */
const OWNERS_NAMED = 3;

/** A definition and the name that reaches it. */
interface Reached { hit: DefinitionHit; name: string }

const lastDot = (name: string): number => name.lastIndexOf('.');
const parentOf = (qual: string): string => (lastDot(qual) < 0 ? '' : qual.slice(0, lastDot(qual)));
/** What a walkBases visitor returns to end the walk. */
const STOP = Symbol('stop');

class SymbolSuggester {
  private readonly found: Array<{ r: Reached; why: Suggestion['why'] }> = [];
  /** The classes the asked name's owner is or inherits from (`fid:qualname`), found by the inherited stage. */
  private readonly ancestors = new Set<string>();

  constructor(private readonly store: Store) {}

  /** `onlyFilteredOut`: the filters are why the answer is empty, so only where the name is without them. */
  suggest(name: string, filtered: boolean, onlyFilteredOut = false): Suggestion[] {
    if (filtered) for (const hit of this.find(name)) this.found.push({ r: { hit, name: hit.qualname }, why: 'filtered_out' });
    if (onlyFilteredOut) return this.grouped();
    // `Client.` (a member's name left out, or a dot typed on): the definitions of `Client`, one character away.
    const owner = name.replace(/\.+$/, '');
    if (owner !== name && owner !== '') {
      for (const hit of this.find(owner)) this.found.push({ r: { hit, name: hit.qualname }, why: 'edit' });
      return this.grouped();
    }
    for (const r of this.reexported(name)) this.found.push({ r, why: 'reexported' });
    for (const r of this.moduleExports(name)) this.found.push({ r, why: 'module' });
    const dot = lastDot(name);
    if (dot > 0 && dot < name.length - 1) {
      for (const r of this.inherited(name.slice(0, dot), name.slice(dot + 1))) this.found.push({ r, why: 'inherited' });
    }
    this.found.push(...this.alike(name));
    return this.grouped();
  }

  /**
   * One suggestion per name, in the order its first definition was found,
   * with that definition's place and how many definitions the name reaches
   * (`getregentry`, defined in a hundred files, is one suggestion, not eight);
   * a definition is suggested under the first name that reached it only.
   */
  private grouped(): Suggestion[] {
    const out: Suggestion[] = [];
    const byName = new Map<string, { s: Suggestion; seen: Set<string>; kinds: NonNullable<Suggestion['kinds']> }>();
    /** Definition -> the name it was first suggested under: a later rule reaching it by another name adds nothing. */
    const named = new Map<string, string>();
    for (const { r, why } of this.found) {
      const key = `${r.hit.fid}:${r.hit.start}:${r.hit.qualname}`;
      if ((named.get(key) ?? r.name) !== r.name) continue;
      named.set(key, r.name);
      const g = byName.get(r.name);
      if (g) {
        if (!g.seen.has(key)) { g.seen.add(key); g.s.count = (g.s.count ?? 1) + 1; g.kinds[r.hit.kind] = (g.kinds[r.hit.kind] ?? 0) + 1; }
        continue;
      }
      if (out.length >= SUGGESTIONS_MAX) continue;
      const f = this.store.file(r.hit.fid);
      if (!f) continue;
      const s: Suggestion = { name: r.name, why, kind: r.hit.kind, path: f.path, line: r.hit.start };
      byName.set(r.name, { s, seen: new Set([key]), kinds: { [r.hit.kind]: 1 } });
      out.push(s);
    }
    // "a variable, not a class, +6 more" read as seven variables when six were functions: the kinds are said when they differ.
    for (const { s, kinds } of byName.values()) if (Object.keys(kinds).length > 1) s.kinds = kinds;
    return out;
  }

  /** Every definition find_symbol answers for `name` (no filters), in its answer order. */
  private find(name: string): DefinitionHit[] {
    return this.store.plan.definitions(name, { quals: moduleQualified(this.store, name) }, { offset: 0, end: Number.MAX_SAFE_INTEGER }).hits;
  }

  /** The definitions whose qualname is exactly `qual` in file `fid`. */
  private inFile(fid: number, qual: string): DefinitionHit[] {
    return this.find(qual).filter((h) => h.fid === fid && h.qualname === qual);
  }

  /**
   * `M.R` where M is a module whose files import R's first part from P
   * (`from P import *`, `from P import N`, `from P import K as N`): the
   * definitions the re-exports reach (py-reexports.ts), by the name they have there.
   */
  private reexported(name: string): Reached[] {
    return pyReexportChains(this.store, name).flatMap((c) => c.hits.map((hit) => ({ hit, name: c.target })));
  }

  /**
   * `A.R` read as TypeScript writes a module's export through a namespace
   * import (`import * as Effect from "effect/Effect"`; `Effect.map`): the
   * definitions with qualname R in the files whose module is A
   * (isModuleFileOf: `A.ts`, `A/index.ts`), suggested by that qualname.
   */
  private moduleExports(name: string): Reached[] {
    const dot = name.indexOf('.');
    if (dot <= 0 || dot === name.length - 1) return [];
    const module = name.slice(0, dot), rest = name.slice(dot + 1);
    const files = new Set(this.store.filesWithPathContaining(module, true).filter((f) => isModuleFileOf(f.path, module)).map((f) => f.fid));
    if (files.size === 0) return [];
    return this.find(rest).filter((h) => files.has(h.fid) && h.qualname === rest).map((hit) => ({ hit, name: hit.qualname }));
  }

  /**
   * `O.m` where O is an interface or a type alias (`Router.navigate`): their
   * members are lines of them, not definitions, so no rule finds `m` and the
   * note says why, naming where O is, and the line that declares `m` in it
   * or, failing that, in the interfaces it extends (declaredMember). Null
   * when O is neither.
   */
  typeOwnerNote(name: string): Note | null {
    const dot = lastDot(name);
    if (dot <= 0 || dot === name.length - 1) return null;
    const owner = name.slice(0, dot), member = name.slice(dot + 1);
    const types = this.find(owner).filter((h) => h.qualname === owner && (h.kind === 'interface' || h.kind === 'type'));
    const paths: string[] = [];
    const declared: string[] = [];
    const places = types.slice(0, OWNERS_NAMED).map((h) => {
      const path = this.store.file(h.fid)!.path;
      paths.push(path);
      const at = this.declaredMember(h, member);
      if (at !== null) {
        declared.push(`${at.path}:${at.line}${at.base === undefined ? '' : ` (in ${at.base}, a base of ${owner})`}`);
        paths.push(at.path);
      }
      return `${h.kind === 'type' ? 'a type alias' : 'an interface'} (${path}:${h.start})`;
    });
    if (places.length === 0) return null;
    if (types.length > places.length) places.push(`${types.length - places.length} more`);
    const listed = places.length === 1 ? places[0] : `${places.slice(0, -1).join(', ')} and ${places[places.length - 1]}`;
    const where = declared.length ? `; ${JSON.stringify(member)} is declared at ${declared.join(', ')}` : '';
    // A class of that name too (hono's class Context beside its interfaces) is said first: its members are definitions, and none is `member`.
    const classes = this.find(owner).filter((h) => h.qualname === owner && h.kind === 'class');
    const classAt = classes.slice(0, OWNERS_NAMED).map((h) => `${this.store.file(h.fid)!.path}:${h.start}`);
    paths.push(...classAt.map((at) => at.slice(0, at.lastIndexOf(':'))));
    if (classes.length > classAt.length) classAt.push(`${classes.length - classAt.length} more`);
    const asClass = classAt.length ? `a class at ${classAt.join(', ')} (whose members are definitions; none is named ${JSON.stringify(member)}), and ` : '';
    return {
      text: `no definition is named ${JSON.stringify(name)}: ${owner} is ${asClass}${listed}, and the members of an interface or a type alias are not definitions: read them among its lines${where}`,
      paths,
    };
  }

  /**
   * Where `member` of type `t` is declared: the line of t's own body that
   * declares it (memberLine), or, when none does, in what t extends, breadth
   * first (walkBases) — interfaces (`InlineConfig.mode` is declared in
   * UserConfig) and the classes an interface may extend
   * (`interface ShadowRootNode extends ElementNode`, a class that extends
   * LexicalNode, which defines getKey): a class's member is its definition,
   * else its line. Where, and the base's name when it is one; null when none
   * is found.
   */
  private declaredMember(t: DefinitionHit, member: string): { path: string; line: number; base?: string } | null {
    let found: { path: string; line: number; base?: string } | null = null;
    // A class merged with t (`interface ElementNode {…}` beside `class ElementNode extends LexicalNode`) is t too: its members and bases are t's.
    const merged = this.inFile(t.fid, t.qualname).filter((h) => h.kind === 'class');
    this.walkBases([t, ...merged], null, (c, depth) => {
      const defined = c.kind === 'class' ? this.inFile(c.fid, `${c.qualname}.${member}`)[0]?.start ?? null : null;
      const line = defined ?? memberLine(this.store.text(c.fid) ?? '', c.start, c.end, member);
      if (line === null) return null;
      found = { path: this.store.file(c.fid)!.path, line, ...(depth > 0 ? { base: c.qualname } : {}) };
      return STOP;
    });
    return found;
  }

  /** Classes (or interfaces) `name` stands for: found by find_symbol, or through re-exports. */
  private classes(name: string): Reached[] {
    const direct = this.find(name).map((hit) => ({ hit, name: hit.qualname }));
    const all = direct.length ? direct : this.reexported(name);
    return all.filter((r) => r.hit.kind === 'class' || (r.hit.kind as string) === 'interface');
  }

  /**
   * `member` as defined on the bases of the classes `owner` names, breadth
   * first (nearest base first, bases left to right); a path stops at the
   * first base that defines it.
   */
  private inherited(owner: string, member: string): Reached[] {
    const out: Reached[] = [];
    // The flag carried: no class between this one and the owner defines the member (past one that does, bases are walked only to know the ancestors).
    this.walkBases(this.classes(owner).map((r) => r.hit), true, (c, depth, live) => {
      this.ancestors.add(`${c.fid}:${c.qualname}`);
      const defined = live && depth > 0 ? this.inFile(c.fid, `${c.qualname}.${member}`) : [];
      for (const hit of defined) out.push({ hit, name: hit.qualname });
      return live && defined.length === 0;
    });
    return out;
  }

  /**
   * Visits `roots` (depth 0), then breadth first the classes and interfaces
   * their `extends` names (basesOf: nearest first, left to right), to
   * MAX_BASE_DEPTH, each definition once. Once is by place, not by name: a
   * class and an interface merged under one name (lexical's ElementNode) are
   * two definitions with one qualname, and only the class names the class it
   * extends. `visit` returns what c's bases are visited with, or STOP to end
   * the walk.
   */
  private walkBases<T>(roots: DefinitionHit[], first: T, visit: (c: DefinitionHit, depth: number, carried: T) => T | typeof STOP): void {
    const visited = new Set<string>();
    let level = roots.map((c) => ({ c, carried: first }));
    for (let depth = 0; depth <= MAX_BASE_DEPTH && level.length; depth++) {
      const next: typeof level = [];
      for (const { c, carried } of level) {
        const key = `${c.fid}:${c.start}`;
        if (visited.has(key)) continue;
        visited.add(key);
        const passed = visit(c, depth, carried);
        if (passed === STOP) return;
        for (const base of this.basesOf(c)) for (const b of base) next.push({ c: b, carried: passed });
      }
      level = next;
    }
  }

  /** The class definitions each base of `c` names, resolved in c's file. */
  private basesOf(c: DefinitionHit): DefinitionHit[][] {
    const f = this.store.file(c.fid);
    if (!f) return [];
    const st = this.store.searchText(c.fid);
    const header = st.textRange(c.start, Math.min(c.end, c.start + HEADER_LINES), 4000);
    const simple = c.qualname.slice(lastDot(c.qualname) + 1);
    return baseNames(f.path, header, simple).map((b) => this.resolveBase(c, b));
  }

  /**
   * The classes a base name written in c's file stands for: a class of that
   * file (beside c, or at the top); a name the file imports (`from P import
   * B`, `import P`, a star import); else every class of the index by that
   * name (nearest path first: a guess, but one a person would make too).
   */
  private resolveBase(c: DefinitionHit, base: string): DefinitionHit[] {
    const isClass = (h: DefinitionHit): boolean => h.kind === 'class' || (h.kind as string) === 'interface';
    const parent = parentOf(c.qualname);
    const local = [parent ? `${parent}.${base}` : '', base].filter((q) => q !== '');
    for (const q of local) {
      const hits = this.inFile(c.fid, q).filter(isClass);
      if (hits.length) return hits;
    }
    const first = base.split('.')[0];
    const rest = base.slice(first.length);
    for (const imp of this.store.imports(c.fid)) {
      const raw = imp.raw as { isFrom?: boolean; names?: string[] };
      if (!raw.names) continue;
      const named: string[] = [];
      if (raw.isFrom && raw.names.includes(first)) for (const t of imp.targets) { if (t.endsWith(`.${first}`)) named.push(t + rest); }
      else if (raw.isFrom && raw.names.includes('*')) for (const t of imp.targets) named.push(`${t}.${base}`);
      else if (!raw.isFrom && raw.names.some((n) => base.startsWith(`${n}.`))) named.push(base);
      for (const n of named) {
        const hits = this.classes(n).map((r) => r.hit);
        if (hits.length) return hits;
      }
    }
    if (!isPythonPath(this.store.file(c.fid)!.path) || !base.includes('.')) {
      const simple = base.slice(lastDot(base) + 1);
      return this.find(simple).filter((h) => isClass(h) && h.qualname === simple && h.fid !== c.fid);
    }
    return [];
  }

  /**
   * Definitions spelled like `name`: the last part compared with every
   * defined simple name, ignoring case — equal (`case`), within
   * allowedDistance (`edit`), or beginning with it (`prefix`, at least three
   * characters) — and any part before it with the definition's enclosing
   * qualname or module-qualified name, the same way, or with a module that
   * re-exports it (`httpx.client` finds `httpx._client.Client`). Nearest first: by
   * reason, the distances added up, the extra length of a prefix match, then
   * qualname and place.
   */
  private alike(name: string): Array<{ r: Reached; why: Suggestion['why'] }> {
    const dot = lastDot(name);
    const tail = (dot < 0 ? name : name.slice(dot + 1)).toLowerCase();
    const head = dot < 0 ? '' : name.slice(0, dot).toLowerCase();
    const tailMax = allowedDistance(tail.length);
    const names: Array<{ n: string; rank: number; d: number; extra: number }> = [];
    const all = this.store.plan.definitionNamesLowered();
    for (let i = 0; i < all.names.length; i++) {
      const n = all.names[i], low = all.lower[i];
      if (low === tail) { names.push({ n, rank: 0, d: 0, extra: 0 }); continue; }
      const d = distanceWithin(tail, low, tailMax);
      if (d <= tailMax) names.push({ n, rank: 1, d, extra: 0 });
      else if (tail.length >= 3 && low.startsWith(tail)) names.push({ n, rank: 2, d: 0, extra: low.length - tail.length });
    }
    names.sort((a, b) => a.rank - b.rank || a.d - b.d || a.extra - b.extra || (a.n < b.n ? -1 : a.n > b.n ? 1 : 0));
    const found: Array<{ r: Reached; why: Suggestion['why']; rank: number; d: number; extra: number }> = [];
    for (const c of names.slice(0, MAX_ALIKE_NAMES)) {
      // The modules the asked head takes this name from (`httpx.client`: httpx star-imports httpx._client, which defines Client).
      const passers = head === '' ? null : new Set(pyBindings(this.store, name.slice(0, dot), c.n).map((s) => s.from));
      for (const hit of this.find(c.n)) {
        if (hit.qualname.slice(lastDot(hit.qualname) + 1) !== c.n) continue;
        // A member of `declare module '../dist/x'` is named by that relative path: no spelling of a bare name.
        if (head === '' && /^\.\.?\//.test(hit.qualname)) continue;
        // Named as find_symbol answers it: under the module that defines it (httpx._client.Client).
        const via = passers === null || parentOf(hit.qualname) !== '' ? undefined : (this.store.file(hit.fid)?.mods ?? []).find((m) => passers.has(m));
        const passed = via !== undefined;
        const hd = head === '' || passed ? 0 : this.headDistance(head, hit);
        if (hd < 0) continue;
        const d = c.d + hd;
        const rank = c.rank === 2 ? 2 : d === 0 ? 0 : 1;
        found.push({ r: { hit, name: passed ? `${via}.${hit.qualname}` : hit.qualname }, why: (['case', 'edit', 'prefix'] as const)[rank], rank, d, extra: c.extra });
      }
    }
    const pathOf = (h: DefinitionHit): string => this.store.file(h.fid)?.path ?? '';
    const dots = (q: string): number => q.split('.').length;
    const depth = (h: DefinitionHit): number => Math.abs(dots(h.qualname) - dots(name));
    found.sort((a, b) => a.rank - b.rank || a.d - b.d || a.extra - b.extra || depth(a.r.hit) - depth(b.r.hit)
      || cmpStr(a.r.hit.qualname, b.r.hit.qualname) || cmpStr(pathOf(a.r.hit), pathOf(b.r.hit)) || a.r.hit.start - b.r.hit.start);
    return found.map(({ r, why }) => ({ r, why }));
  }

  /**
   * How far `head` (lowercased) is from what encloses the definition — its
   * qualname's parent, or that under a module name of its file; 0 for a class
   * the owner is or inherits from; -1 when too far.
   */
  private headDistance(head: string, hit: DefinitionHit): number {
    const parent = parentOf(hit.qualname);
    if (this.ancestors.has(`${hit.fid}:${parent}`)) return 0; // a member of the owner or of a class it inherits from
    const forms = parent ? [parent] : [];
    for (const m of this.store.file(hit.fid)?.mods ?? []) forms.push(parent ? `${m}.${parent}` : m);
    const max = allowedDistance(head.length);
    let best = max + 1;
    for (const form of forms) best = Math.min(best, distanceWithin(head, form.toLowerCase(), max));
    return best <= max ? best : -1;
  }
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The line (1-based) among lines start..end of `text` that declares `member`
 * of the type written there: a line of the type's own body, its first brace
 * level, that starts with the member's name (after `readonly`, `get`, `set`
 * or a quote) followed by `?`, `:`, `(` or `<` — `navigate(to: string): void`,
 * `readonly config?: Config`. Members of nested object types, and members
 * written on the line that opens the type, are not looked at. Null when no line
 * declares it. Braces are counted as written, strings and comments included:
 * a type's members are rarely written with them.
 */
function memberLine(text: string, start: number, end: number, member: string): number | null {
  const lines = text.split('\n');
  const escaped = escapeRegExp(member);
  const declares = new RegExp(`^\\s*(?:(?:readonly|get|set)\\s+)?(['"]?)${escaped}\\1\\s*[?:(<]`);
  let depth = 0;
  for (let n = start; n <= end && n <= lines.length; n++) {
    const line = lines[n - 1];
    if (depth === 1 && declares.test(line)) return n;
    for (const c of line) depth += c === '{' ? 1 : c === '}' ? -1 : 0;
  }
  return null;
}
