// `evidex index`: build or refresh the index with a progress line. Without a
// daemon the index is built in this process (client/index-command.ts, under
// the root's lock); when a daemon holds the root, it is asked to refresh and
// its progress is shown. Ctrl-C leaves a clean line, says what the index keeps and exits 130.
// With --unresolved, the TS/JS import statements that resolved nowhere are
// listed below the summary, from the index just refreshed (unresolved-report.ts).
import { human, path, stderr, stdout, type Shown } from '../../local/human.js';
import { Methods, Notifications, type BuildSummary, type LeftOutFolder, type UnresolvedImports, type WaitedFor } from '../../protocol/messages.js';
import type { LeftOutCounts } from '../../indexer/discover/left-out.js';
import { DEFAULT_LIMIT, DEFAULT_UNRESOLVED_REASONS, UNRESOLVED_REASONS } from '../../indexer/query/limits.js';
import { formatLeftOut, formatTsImports, formatWaited } from '../daemon-report.js';
import { CLIENT_NAME, defineCommand, flag, HELP, JSON_FLAG, needPositionals, REPO, unnamedRoot, UsageError } from '../command.js';
import { Refusal } from '../errors.js';
import { COLOR, noteLines, olderDaemon, outScreen, PAGE, PATH_PREFIX, withShownFrom } from './tool-command.js';

const USAGE = 'evidex index [--repo DIR] [--json] [--unresolved] [--reason R] [--limit N] [--offset N] [--path-prefix P] [--color WHEN]';

export const command = defineCommand({
  usage: USAGE,
  summary: 'build or refresh the index, with progress; --unresolved lists the TS/JS imports that resolved nowhere',
  details: 'Without a daemon the index is built in this process; with one running, the daemon refreshes it.\n'
    + 'Unchanged files (same size, time and hash) are not parsed again. Ctrl-C stops it, keeping every file it parsed.\n'
    + 'With --unresolved, the TS/JS import statements that resolved nowhere follow the summary, by reason, as `path:line: text`: '
    + 'missing (the path reaches no file) and under an unreadable config unless --reason says otherwise.',
  examples: ['evidex index', 'evidex index --repo ~/src/flask --json', 'evidex index --unresolved', 'evidex index --unresolved --reason external --limit 50', 'evidex index --unresolved --path-prefix packages/core'],
  flags: {
    ...REPO, ...JSON_FLAG,
    unresolved: flag.boolean('then list the TS/JS import statements that resolved nowhere, by reason'),
    reason: flag.choice('R', [...UNRESOLVED_REASONS, 'all'], 'with --unresolved: only missing, config or external statements, or all (default: missing and config)'),
    ...PAGE, ...PATH_PREFIX, ...COLOR, ...HELP,
  },
  async run(p) {
    // `evidex index ~/src/other` would otherwise index the current repository without a word: the folder goes in --repo.
    needPositionals(p, 0, USAGE, `a repository elsewhere is --repo ${p.positionals[0]}`);
    const { placeOf } = await import('../paths.js');
    const place = await placeOf(p);
    const root = place.root;
    const json = Boolean(p.flags.json);
    const listing = ['reason', 'limit', 'offset', 'path-prefix', 'color'].filter((f) => p.flags[f as keyof typeof p.flags] !== undefined);
    if (!p.flags.unresolved && listing.length) throw new UsageError(`--${listing[0]} goes with --unresolved`);
    const reasons = p.flags.reason === 'all' ? [...UNRESOLVED_REASONS] : p.flags.reason ? [p.flags.reason] : [...DEFAULT_UNRESOLVED_REASONS];
    // The prefix is typed from here, as the tool commands take theirs (`/`: the whole repository); the text form's notes name paths from here.
    const prefix = p.flags['path-prefix'] === undefined ? undefined : place.prefixToRoot(p.flags['path-prefix']);
    const shownFrom = json ? undefined : place.here || undefined;
    // Typed in a folder of a repository nobody named, `evidex index` indexes the repository: if the index leaves
    // that folder out, it says so, and how to index the folder itself (docs/cli.md, evidex index).
    const folder = unnamedRoot(p) && place.here ? place.here : undefined;
    const query = p.flags.unresolved ? { reasons, limit: p.flags.limit ?? DEFAULT_LIMIT, offset: p.flags.offset ?? 0, path_prefix: prefix, shown_from: shownFrom } : undefined;
    const [{ ProgressLine }, { buildInProcess, BuildStopped, DaemonBusy, whileHeld }] = await Promise.all([import('../progress.js'), import('../index-command.js')]);
    const bar = new ProgressLine(stderr(), json);
    // Ctrl-C. A build in this process is stopped at its next parse results and commits what it parsed, so the next
    // run parses only the rest (a second Ctrl-C stops at once, keeping what was committed); waiting on another
    // process or a daemon, nothing here writes. One line says what the index keeps (the default SIGINT exit would
    // leave the progress line half drawn under the prompt), then the process dies of the signal itself, as the shell
    // expects of Ctrl-C (status 130): a normal exit would tear down the parser threads mid-call, which aborts in native code.
    const stop = new AbortController();
    let waitingOn: number | null = null; // another process's pid, while its build is waited for
    let viaDaemon = false;
    const interrupted = (said: Shown): Promise<never> => {
      bar.done();
      stderr().line(human`evidex: interrupted; ${said}`);
      process.off('SIGINT', onInterrupt);
      process.kill(process.pid, 'SIGINT');
      return new Promise<never>(() => undefined); // the signal ends the process
    };
    const onInterrupt = () => {
      if (viaDaemon) void interrupted(human`the daemon goes on with the refresh, and \`evidex index\` waits for it and says what it did`);
      else if (waitingOn !== null) void interrupted(human`nothing was written here, and process ${waitingOn} goes on building the index`);
      else if (!stop.signal.aborted) stop.abort(); // the build's end says what it kept
      else void interrupted(human`stopped at once: the files committed so far are kept, and \`evidex index\` parses the rest`);
    };
    process.on('SIGINT', onInterrupt);
    const t0 = Date.now();
    type Summary = BuildSummary & {
      generation: number; indexBytes?: number; leftOut?: LeftOutCounts; secretPaths?: string[]; worktreePaths?: string[]; unresolved?: UnresolvedImports;
      left_out_folder?: LeftOutFolder; waited_for?: WaitedFor; via: 'daemon' | 'in-process';
    };
    let summary: Summary | undefined;
    let told = false;
    try {
      // Another `evidex index` building in its own process (or a daemon still starting) holds the lock:
      // wait for it, then build here (finding its work unchanged) or ask the daemon that now serves.
      while (summary === undefined) {
        try {
          summary = { ...await buildInProcess(root, (pr) => bar.update(pr), { unnamedRoot: unnamedRoot(p), unresolved: query, folder, signal: stop.signal }), via: 'in-process' };
        } catch (e) {
          if (e instanceof BuildStopped) {
            await interrupted(e.files > 0
              ? human`the files parsed so far are kept (the index holds ${e.files} now), and \`evidex index\` parses only the rest`
              : human`stopped before any file was parsed, so the index holds none yet: \`evidex index\` starts it again`);
          }
          if (!(e instanceof DaemonBusy)) throw e;
          if (stop.signal.aborted) await interrupted(human`nothing was written here`);
          const tell = () => {
            if (!told) stderr().line(human`evidex: another process (pid ${e.pid}) is building this index; waiting for it to finish`);
            told = true;
          };
          waitingOn = e.pid;
          const next = await whileHeld(e, tell);
          waitingOn = null;
          if (next === 'daemon') break;
        }
      }
      if (stop.signal.aborted && summary) await interrupted(human`the build had ended by then: the index is complete (${summary.files} files)`);
      // A Ctrl-C after the wait ended and before the daemon was asked: nothing asked yet, so nothing goes on.
      if (stop.signal.aborted) await interrupted(human`nothing was written here`);
      viaDaemon = summary === undefined;
      if (summary === undefined) {
        // A daemon owns this root's index: ask it to refresh and show its progress.
        const { connect } = await import('../connection.js');
        const client = await connect(root, { autoStart: false, clientName: CLIENT_NAME });
        // Until its own pass reports, the refresh waits for its turn behind the daemon's running write (a checkout's
        // catch-up, the start-up check): that write's progress is shown meanwhile, and what it did is said after.
        const { watchWritesAhead } = await import('../build-wait.js');
        let ownPass = false;
        const ahead = json ? null : watchWritesAhead(client, (w) => {
          if (w && !ownPass) bar.show(w.fraction, w.words ? human`waiting for ${w.what}: ${w.words}` : human`waiting for ${w.what}`, false, w.fraction > 0);
        });
        try {
          client.onNotification(Notifications.indexProgress, (params) => {
            if (!ownPass) { ownPass = true; void ahead?.stop(); }
            bar.update(params.progress);
          });
          const refreshed = await client.request(Methods.indexRefresh, folder === undefined ? undefined : { folder }).catch((e: unknown) => {
            if (!olderDaemon(e, 'folder')) throw e;
            return client.request(Methods.indexRefresh); // a daemon older than `folder`: the refresh, without the note
          }).finally(() => ahead?.stop());
          // What the walk left out, counted (and its secrets and work trees named) as `evidex daemon status` does.
          const { leftOut, secretPaths, worktreePaths } = (await client.request(Methods.indexStatus)).index;
          summary = { ...refreshed, leftOut, secretPaths, worktreePaths, via: 'daemon' };
          if (query) summary.unresolved = await withShownFrom(query.shown_from, (from) => client.request(Methods.indexUnresolved, { ...query, shown_from: from })).catch((e: unknown) => {
            throw olderDaemon(e, 'path_prefix') ? new Refusal('invalid_arguments', 'the daemon serving this repository is older than --path-prefix here: stop it (evidex daemon stop) and run this again') : e;
          });
        } finally {
          await client.close();
        }
      }
    } finally {
      bar.done();
      process.off('SIGINT', onInterrupt);
    }
    if (json) {
      // Seconds to the hundredth, as the text form prints them (a number still): the rest is timing noise.
      stdout().json({ root: root.path, ...summary, seconds: Number(summary.seconds.toFixed(2)) });
    } else {
      const s = summary;
      const tsImports = formatTsImports(s.tsImports);
      const ts = tsImports === null ? '' : human`  ts/js   ${tsImports}\n`;
      const size = s.indexBytes !== undefined ? human`  index   ${(s.indexBytes / 1048576).toFixed(1)} MiB\n` : '';
      stdout().write(human`indexed ${path(root.path)} (${s.via})
${s.waited_for ? human`  waited  ${formatWaited(s.waited_for)}\n` : ''}  files   ${s.files} (${s.waited_for ? 'then this pass: ' : ''}${s.parsed} parsed, ${s.unchanged} unchanged, ${s.removed} removed)
  left out ${formatLeftOut(s.leftOut, s, (f) => place.shown(f))}
  symbols ${s.symbols}
  imports ${s.imports}
${ts}  lines   ${s.lines}
${size}  seconds ${s.seconds.toFixed(2)} (wall ${((Date.now() - t0) / 1000).toFixed(2)})
`);
      if (s.unresolved) {
        const { formatUnresolved, formatUnresolvedFooter } = await import('../unresolved-report.js');
        const shown = (f: string) => place.shown(f);
        const listed = formatUnresolved(s.unresolved, { shown }, prefix);
        if (listed) outScreen(p).line(listed);
        stderr().line(formatUnresolvedFooter(s.unresolved, reasons, prefix === undefined ? undefined : shown(prefix)));
        for (const note of await noteLines(s.unresolved, place)) stderr().line(note);
      }
      // The folder typed in, unless --unresolved's --path-prefix named it and its note said so already.
      if (s.left_out_folder && s.unresolved?.left_out_folder?.path_prefix !== s.left_out_folder.path_prefix) {
        const { leftOutFolderNote } = await import('../left-out-folder.js');
        stderr().line(leftOutFolderNote(s.left_out_folder, place, process.argv.slice(2)));
      }
    }
    return 0;
  },
});
