// What the watcher does when one of git's own ignore sources changed
// (watch/git-sources.ts saw it): the rules read them again and say what
// changed (RepoRules.reloadGitSources). New patterns: only the indexed paths
// now ignored and the entries left out as ignored that are not any more are
// checked again (a folder that came into view is walked by update, and
// watched: watch/pruned.ts). A changed tracked set: the paths whose tracked
// state flipped; a folder that only tracked files made visible, or no
// candidates to narrow to, a re-walk.
import { parentOf, type RepoRules } from '../discover/rules.js';
import type { WatchOptions } from './options.js';

export type GitChange = { rewalk: true; why: string } | { rewalk: false; paths: string[]; why?: string };

export async function gitSourcesChanged(rules: RepoRules, index: WatchOptions['index']): Promise<GitChange> {
  const change = await rules.reloadGitSources();
  const candidates = change.rules && !change.trackedDirs ? index.ignoreCandidates?.() : undefined;
  if (candidates) {
    const paths = candidates.indexed.filter((p) => rules.isIgnored(p, false));
    for (const p of candidates.ignored) {
      // In view now, or now below an ignored folder (which a walk would count instead, once).
      if (!rules.isIgnored(p, false) || !rules.isIgnored(p, true) || rules.isIgnored(parentOf(p), true)) paths.push(p);
    }
    return { rewalk: false, paths, why: 'git\'s ignore patterns changed' };
  }
  if (change.rules) return { rewalk: true, why: 'git\'s ignore sources changed' };
  if (change.trackedDirs) return { rewalk: true, why: 'the tracked folders changed' };
  return { rewalk: false, paths: change.tracked };
}
