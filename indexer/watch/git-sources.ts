// Watches git's own ignore sources (docs/tools.md, What is indexed: every
// ignore source is live): .git/info/exclude, the file core.excludesFile
// names, .git/config (which names it, and core.ignorecase) and .git/index
// (the tracked files: git never ignores a tracked file). The tree's watcher
// never looks inside .git/, and the excludes file may live anywhere, so these
// get watches of their own: one fs.watch per folder that holds one of them
// (an editor or git replaces such a file by a rename, which a watch on the
// file itself would not survive), filtered to the names that matter. A
// folder that does not exist yet (no ~/.config/git/, no .git/info/) is
// waited for at its nearest existing ancestor, watched alone (not its
// subfolders) for the one name on the way down: when that appears, the
// watches move down, and the rules look again (the file may have been
// written before its folder's watch was in place).
// What a change means is the rules' to say (RepoRules.reloadGitSources); this
// module only says "look again".
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { GitSourceFiles } from '../discover/git-sources.js';

export class GitSourceWatch {
  private watchers: FSWatcher[] = [];
  private watching = '';
  /** Folders that held a source file and did not exist at the last follow(). */
  private missing = new Set<string>();

  constructor(private readonly onChange: (what: string) => void, private readonly log?: (line: string) => void) {}

  /** Watches the folders of these files (again, when they moved: core.excludesFile changed); null stops watching. */
  follow(files: GitSourceFiles | null): void {
    const byFolder = new Map<string, Set<string>>();
    const add = (file: string): void => {
      if (file === '') return;
      const dir = dirname(file);
      if (!byFolder.has(dir)) byFolder.set(dir, new Set());
      byFolder.get(dir)!.add(basename(file));
    };
    if (files) {
      add(join(files.gitDir, 'index'));
      add(join(files.commonDir, 'config'));
      add(join(files.gitDir, 'config.worktree'));
      add(join(files.commonDir, 'info', 'exclude'));
      add(files.excludesFile);
    }
    const missing = new Set<string>();
    for (const dir of [...byFolder.keys()]) {
      if (existsSync(dir)) continue;
      // Waited for at the nearest folder that exists, for the next name on the way down.
      missing.add(dir);
      byFolder.delete(dir);
      let child = dir;
      while (dirname(child) !== child && !existsSync(dirname(child))) child = dirname(child);
      if (dirname(child) !== child) add(child);
    }
    const appeared = [...this.missing].some((dir) => !missing.has(dir));
    this.missing = missing;
    const key = JSON.stringify([...byFolder].map(([d, names]) => [d, [...names].sort()]).sort());
    if (key === this.watching) return;
    this.unwatch();
    this.watching = key;
    for (const [dir, names] of byFolder) {
      try {
        const w = watch(dir, { persistent: false }, (_event, name) => {
          if (name === null || names.has(String(name))) this.onChange(join(dir, String(name ?? '')));
        });
        w.on('error', () => { /* the folder went away: the next follow() watches what is there then */ });
        this.watchers.push(w);
      } catch (err) {
        // A folder that does not exist (no excludes file, no info/): nothing in it can change the rules yet.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log?.(`watcher: cannot watch ${dir} for ignore sources: ${(err as Error).message}`);
      }
    }
    // A folder waited for is there now: what was written in it before its watch was in place is read.
    if (appeared) this.onChange('a folder of an ignore source appeared');
  }

  close(): void {
    this.unwatch();
    this.missing.clear();
  }

  private unwatch(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    this.watching = '';
  }
}
