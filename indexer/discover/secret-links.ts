// What a symbolic link makes secret (docs/tools.md, Secrets; Symbolic links).
// A file reached through a link under a secret name is that secret under every
// name: `.env -> settings.txt` makes settings.txt a secret, and the folder link
// `.aws -> aws-profile` makes aws-profile/credentials one (`.aws/credentials`).
// The walk asks this of each link it meets; the builder asks it of each link an
// update names, and keeps which files a link made secret, so that when the link
// goes or is retargeted those files are judged again.
import type { Dirent } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { identityOf, realRelative, type RepoRules } from './rules.js';

/** A real file inside the root, and its identity. */
export interface SecretTarget { path: string; id: string }

/** How deep a folder link's folder is searched: the built-in path patterns reach two folders down (`.config/gh/hosts.yml`). */
const MAX_DEPTH = 8;

/**
 * The real files the link at `rel` makes secret, given where it leads:
 * a file when the link's name or the file's is a secret; for a folder, each
 * file under it whose name through the link is a secret.
 */
export async function secretsThroughLink(rules: RepoRules, rel: string, targetReal: string, isDir: boolean): Promise<SecretTarget[]> {
  const targetRel = realRelative(rules.realRoot, targetReal);
  if (targetRel === null) return [];
  if (!isDir) {
    if (!rules.isSecret(rel) && !rules.isSecret(targetRel)) return [];
    try {
      const st = await stat(targetReal);
      return st.isFile() ? [{ path: targetRel, id: identityOf(st) }] : [];
    } catch { return []; } // gone since
  }
  const out: SecretTarget[] = [];
  const queue: Array<{ sub: string; depth: number }> = [{ sub: '', depth: 0 }];
  while (queue.length) {
    const { sub, depth } = queue.shift()!;
    let dirents: Dirent[];
    try { dirents = await readdir(sub === '' ? targetReal : `${targetReal}/${sub}`, { withFileTypes: true }); } catch { continue; }
    for (const d of dirents) {
      if (d.name === '.git') continue;
      const inner = sub === '' ? d.name : `${sub}/${d.name}`;
      if (d.isDirectory()) { if (depth + 1 < MAX_DEPTH) queue.push({ sub: inner, depth: depth + 1 }); continue; }
      if (!d.isFile() || !rules.isSecret(`${rel}/${inner}`)) continue;
      try {
        const st = await lstat(`${targetReal}/${inner}`);
        const path = targetRel === '' ? inner : `${targetRel}/${inner}`;
        if (st.isFile()) out.push({ path, id: identityOf(st) });
      } catch { /* gone since the listing */ }
    }
  }
  return out;
}

/** secretsThroughLink for the path `rel` when it is a link that leads inside the root; [] for anything else. */
export async function secretsOfPath(rules: RepoRules, rel: string): Promise<SecretTarget[]> {
  const abs = `${rules.realRoot}/${rel}`;
  try {
    if (!(await lstat(abs)).isSymbolicLink()) return [];
    const targetReal = await realpath(abs);
    return await secretsThroughLink(rules, rel, targetReal, (await stat(targetReal)).isDirectory());
  } catch { return []; } // dangling, looping or gone: it leads to nothing
}

/**
 * The files links made secret, by link, as updates met them. An update names
 * a link that came, went or changed: the files it makes secret now are noted
 * secret, and they and the ones it made secret before are checked again (a
 * file no secret name leads to any more is a plain file again).
 */
export class SecretLinks {
  private readonly byLink = new Map<string, string[]>();

  /** Replaces what is known below `folder` ('' = everything) with what a walk of it met. */
  replace(found: Iterable<{ path: string; targets: string[] }>, folder = ''): void {
    for (const link of this.byLink.keys()) if (folder === '' || link.startsWith(`${folder}/`)) this.byLink.delete(link);
    for (const l of found) this.byLink.set(l.path, l.targets);
  }

  /** The paths to check again for `paths` named by an update (besides those paths). */
  async touched(rules: RepoRules, paths: readonly string[]): Promise<string[]> {
    const again = new Set<string>();
    // A target saved anew (a new inode, by rename) is the same secret: what the link makes secret is looked at again.
    const named = new Set(paths);
    for (const [link, targets] of this.byLink) {
      if (!targets.some((t) => named.has(t)) || named.has(link)) continue;
      const now = await secretsOfPath(rules, link);
      rules.noteSecrets(now.map((t) => t.id), false);
      this.byLink.set(link, now.map((t) => t.path));
    }
    for (const p of paths) {
      for (const [link, targets] of this.byLink) {
        if (link !== p && !link.startsWith(`${p}/`)) continue;
        for (const t of targets) again.add(t);
        this.byLink.delete(link);
      }
      const now = await secretsOfPath(rules, p);
      if (now.length === 0) continue;
      rules.noteSecrets(now.map((t) => t.id), false);
      this.byLink.set(p, now.map((t) => t.path));
      for (const t of now) again.add(t.path);
    }
    for (const p of paths) again.delete(p);
    return [...again];
  }
}
