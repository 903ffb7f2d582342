// Why a folder inside the root is not indexed, in words a person can act on,
// and why a path the walk's checkPath left out is (whyLeftOut)
// (docs/tools.md, Paging; docs/cli.md, Tool commands): a command typed in a folder the
// index leaves out as a whole — site-packages under an ignored `versions/`, a
// project's `.venv/`, a work tree of the repository, `.git/` itself — finds
// nothing there, and "nothing in the index is under" alone does not say that
// the folder is left out on purpose, nor by which rule. The rules module
// decides; this only names the decision, with the ignore file's line as
// `git check-ignore -v` names it (no git is run at query time).
import { statSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { matchingPattern, type IgnorePattern } from './gitignore.js';
import type { FolderLeftOutReason, WalkLeftOutReason } from './left-out.js';
import { isNameTooLongError, isPathTooLong } from './path-limits.js';
import { inGitDir, parentOf, realRelative, type RepoRules } from './rules.js';

/** The rule that decided, as `git check-ignore -v` names it: the file (root-relative; above the root as ignoreFileFromRoot names it), its line, the pattern as written. */
export interface DecidingRule { file: string; line: number; pattern: string }

/** Why a folder is not indexed: which kind of reason, and the reason as one clause naming root-relative paths. */
export interface FolderLeftOut { reason: FolderLeftOutReason; why: string }

/**
 * Why the folder `dirRel` (root-relative, no trailing "/"), which exists, is
 * not indexed; null when the rules keep it (or it is no folder: then nothing
 * is left out, it is only absent).
 */
export function whyFolderLeftOut(rules: RepoRules, dirRel: string): FolderLeftOut | null {
  if (dirRel === '' || !isFolder(rules.realRoot, dirRel)) return null;
  if (inGitDir(dirRel)) {
    const parts = dirRel.split('/');
    return { reason: 'gitDir', why: `${JSON.stringify(`${parts.slice(0, parts.indexOf('.git') + 1).join('/')}/`)} is git's own folder, never indexed` };
  }
  const out = rules.excludedFolder(dirRel);
  if (out === null) return isPathTooLong(rules.realRoot, dirRel) ? { reason: 'pathTooLong', why: 'its path is past the length evidex indexes' } : null;
  const at = JSON.stringify(`${out.at}/`);
  if (out.why === 'worktree') return { reason: 'worktree', why: `${at} is a work tree of this repository, left out as git status leaves it` };
  if (out.why === 'state') return { reason: 'state', why: `${at} holds evidex's own state (its CACHEDIR.TAG names evidex), never indexed` };
  const rule = decidingRule(rules, out.at);
  const pattern = rule === null ? '' : JSON.stringify(rule.pattern);
  const why = rule === null ? `${at} is ignored`
    : rule.line === 0 ? `${at} is ignored by the configured ignore pattern ${pattern}`
    : `${rule.file}:${rule.line} ignores ${at}${pattern === at ? '' : ` (pattern ${pattern})`}`;
  return { reason: 'ignored', why };
}

/**
 * The rule that leaves out `dirRel`, a folder the rules exclude whose parent
 * they keep: an .evidexignore pattern on it, else git's pattern on it or, for
 * a folder git enters only for its tracked files, on the nearest ancestor.
 */
export function decidingRule(rules: RepoRules, dirRel: string): DecidingRule | null {
  const evidex = firstMatch(rules, dirRel, 'evidex');
  if (evidex !== null && !evidex.pattern.negative) return { file: evidex.file, line: evidex.pattern.line, pattern: evidex.pattern.source };
  for (let at = dirRel; at !== ''; at = parentOf(at)) {
    const git = firstMatch(rules, at, 'git');
    if (git !== null && !git.pattern.negative) return { file: git.file, line: git.pattern.line, pattern: git.pattern.source };
  }
  return null;
}

/** The pattern of the first (deepest) ignore file of one layer that matches the folder `dirRel`, with its file. */
function firstMatch(rules: RepoRules, dirRel: string, layer: 'git' | 'evidex'): { file: string; pattern: IgnorePattern } | null {
  for (const link of rules.chainFor(parentOf(dirRel))) {
    const patterns = link.rules[layer];
    if (patterns === null) continue;
    const pattern = matchingPattern(patterns, link.lead + (link.dir === '' ? dirRel : dirRel.slice(link.dir.length + 1)), true);
    if (pattern === null) continue;
    const file = layer === 'git' ? link.gitFile : link.dir === '' ? '.evidexignore' : `${link.dir}/.evidexignore`;
    return { file, pattern };
  }
  return null;
}

function isFolder(realRoot: string, dirRel: string): boolean {
  try {
    return statSync(join(realRoot, dirRel)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Why checkPath left out a path that exists, in the words of left-out.ts, or
 * null when the reason is none a person is told about (a link out of the root,
 * a folder, a device). Asked only for the paths checkPath answered null.
 */
export async function whyLeftOut(rules: RepoRules, relPath: string, opts: { maxFileBytes?: number } = {}): Promise<WalkLeftOutReason | null> {
  if (isPathTooLong(rules.realRoot, relPath)) return 'pathTooLong';
  if (inGitDir(relPath)) return null;
  const above = rules.excludedFolder(parentOf(relPath));
  if (above !== null) return above.why === 'state' ? null : above.why;
  if (rules.isIgnored(relPath, false)) return 'ignored';
  if (rules.isSecret(relPath) || rules.isKnownSecretFile(relPath)) return 'secret';
  try {
    const st = await stat(join(rules.realRoot, relPath));
    if (st.isDirectory()) { const why = rules.excludedFolder(relPath)?.why ?? null; return why === 'state' ? null : why; }
    if (!st.isFile() || st.size <= (opts.maxFileBytes ?? rules.maxFileBytes)) return null;
    // A symlink's name (or a path through a linked folder) is no file of its own: what it leads to is told of under its real path.
    return realRelative(rules.realRoot, await realpath(join(rules.realRoot, relPath))) === relPath ? 'tooLarge' : null;
  } catch (err) {
    return isNameTooLongError(err) ? 'pathTooLong' : null;
  }
}
