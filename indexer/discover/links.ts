// The symbolic links inside the root that lead to a file or folder inside it
// (docs/tools.md, What is indexed: Symbolic links). The index lists each real
// file once, under its real path, and no name through a link; but the
// TypeScript compiler resolves `require("./lib/current")` through
// `lib/current.js -> greet.js` as the file system does. So the builder keeps
// the links the walk met (and those an update met) here, and resolution
// follows them to the indexed file they stand for.
import type { RepoRules } from './rules.js';
import { checkLink } from './walk.js';

/** How many links one path may pass through, as Linux's own limit (ELOOP past it). */
const MAX_HOPS = 40;

export class RepoLinks {
  /** Link name → where it leads, both root-relative ('' is the root). */
  private readonly byName = new Map<string, string>();

  /** Names whose state changed since takeChanged() last answered them (resolution re-resolves what rested on them). */
  private readonly changed = new Set<string>();

  get size(): number { return this.byName.size; }

  /** The link names that came, went or were retargeted since the last call. */
  takeChanged(): string[] {
    const out = [...this.changed];
    this.changed.clear();
    return out;
  }

  /** Names takeChanged() answered whose re-resolution was not committed after all (a failed commit is retried): they are answered again. */
  putBack(names: Iterable<string>): void {
    for (const n of names) this.changed.add(n);
  }

  /** Replaces what is known below `folder` ('' = everything) with the links a walk of it met. */
  replace(found: Iterable<{ path: string; target: string }>, folder = ''): void {
    const before = this.takeUnder(folder, false);
    for (const l of found) {
      this.byName.set(l.path, l.target);
      if (before.get(l.path) !== l.target) this.changed.add(l.path);
      before.delete(l.path);
    }
    for (const p of before.keys()) this.changed.add(p);
  }

  /**
   * The link state of one path an update names, as the walk would find it
   * (`gone`: nothing is there now, so no link is left below it either).
   */
  async recheck(rules: RepoRules, path: string, gone: boolean): Promise<void> {
    if (gone) { for (const p of this.takeUnder(path, true).keys()) this.changed.add(p); return; }
    const target = await checkLink(rules, path);
    if (target === null ? !this.byName.delete(path) : this.byName.get(path) === target) return;
    if (target !== null) this.byName.set(path, target);
    this.changed.add(path);
  }

  /** Removes the links below `folder` ('' = all; `itself`: and at it) and answers them, each with its target. */
  private takeUnder(folder: string, itself: boolean): Map<string, string> {
    const out = new Map<string, string>();
    for (const [p, t] of this.byName) if (folder === '' || (itself && p === folder) || p.startsWith(`${folder}/`)) out.set(p, t);
    for (const p of out.keys()) this.byName.delete(p);
    return out;
  }

  /** `rel` with every link along it followed; `rel` itself when it passes through none (or through too many). */
  follow(rel: string): string {
    if (this.byName.size === 0) return rel;
    let cur = rel;
    for (let hops = 0; hops < MAX_HOPS; hops++) {
      const next = this.oneHop(cur);
      if (next === null) return cur;
      cur = next;
    }
    return rel;
  }

  /** `rel` with its first link (nearest the root) replaced by its target; null when it passes through none. */
  private oneHop(rel: string): string | null {
    for (let i = rel.indexOf('/'); ; i = rel.indexOf('/', i + 1)) {
      const head = i < 0 ? rel : rel.slice(0, i);
      const target = this.byName.get(head);
      if (target !== undefined) {
        const rest = i < 0 ? '' : rel.slice(i + 1);
        return target === '' ? rest : rest === '' ? target : `${target}/${rest}`;
      }
      if (i < 0) return null;
    }
  }
}
