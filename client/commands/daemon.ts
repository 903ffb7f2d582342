// `evidex daemon start|stop|status|run|list|prune`: one root's daemon
// (connection.ts acts, daemon-report.ts prints status), or every daemon under
// $EVIDEX_HOME (daemon-commands.ts acts, daemon-report.ts says what happened).
import { human, line, path, stdout, type Shown } from '../../local/human.js';
import { nearestName } from '../../local/distance.js';
import { commandLine, type CommandPlace } from '../command-line.js';
import { defineCommand, flag, HELP, JSON_FLAG, needPositionals, REPO, unnamedRoot, UsageError } from '../command.js';

const USAGE = 'evidex daemon start|stop|status|run|list|prune [--repo DIR] [--all] [--json]';
const ACTIONS = ['start', 'stop', 'status', 'run', 'list', 'prune'];

/** `unknown daemon action "stats"; did you mean \`evidex daemon status\`?`, as an unknown command gets one (cli.ts), written for where it ran (--repo from outside the root). */
function unknownAction(action: string, place: CommandPlace): string {
  const near = nearestName(action, ACTIONS);
  return `unknown daemon action ${JSON.stringify(action)}${near ? `; did you mean \`${commandLine(place, ['daemon', near])}\`?` : ''} (usage: ${USAGE})`;
}

export const command = defineCommand({
  usage: USAGE,
  summary: 'start, stop or inspect the daemon for a repository (run = in the foreground); list, stop --all or prune all of them',
  examples: ['evidex daemon status', 'evidex daemon start --repo ~/src/flask', 'evidex daemon list', 'evidex daemon stop --all'],
  flags: { ...REPO, all: flag.boolean('with stop: every daemon under $EVIDEX_HOME'), ...JSON_FLAG, ...HELP },
  async run(p) {
    needPositionals(p, 1, USAGE);
    const action = p.positionals[0];
    const json = Boolean(p.flags.json);
    const c = await import('../connection.js');
    // One report, as JSON or as text for a person (local/human.ts: a root or a message cannot steer the terminal).
    const out = (text: Shown, obj: unknown) => (json ? stdout().json(obj) : stdout().line(text));
    if (p.flags.all && action !== 'stop') throw new UsageError(`--all goes with stop only; usage: ${USAGE}`);
    if (action === 'list' || action === 'prune' || p.flags.all) {
      if (p.flags.repo !== undefined) throw new UsageError(`daemon ${action}${p.flags.all ? ' --all' : ''} covers every repository; it takes no --repo`);
      const [act, report] = await Promise.all([import('../daemon-commands.js'), import('../daemon-report.js')]);
      // These reports end their own last line.
      const print = (text: Shown, obj: unknown) => (json ? stdout().json(obj) : stdout().write(text));
      if (action === 'list') { const l = await act.listDaemons(); print(report.formatList(l), l); }
      else if (action === 'prune') { const r = await act.pruneStateDirs(); print(report.formatPrune(r), r); }
      else { const stopped = await act.stopAllDaemons(); print(report.formatStopAll(stopped, (await import('../../local/state.js')).stateRoot()), { stopped }); }
      return 0;
    }
    const { Place, placeOf } = await import('../paths.js');
    const place = await placeOf(p).catch(async (e: unknown) => {
      // A root deleted under its daemon: stop and status still find that daemon by the path's state folder (its paths then shown from the root).
      const gone = (action === 'stop' || action === 'status') && p.flags.repo !== undefined
        ? await (await import('../daemon-commands.js')).goneRoot(p.flags.repo) : null;
      if (gone === null) throw e;
      return new Place(gone, gone.path);
    });
    const root = place.root;
    switch (action) {
      case 'start': {
        const r = await c.daemonStart(root, { unnamedRoot: unnamedRoot(p) });
        out(r.started ? human`started evidex daemon for ${path(r.info.root)} (pid ${r.info.pid}) at ${r.info.url}; log: ${path(r.log)}`
          : human`evidex daemon already running for ${path(r.info.root)} (pid ${r.info.pid}) at ${r.info.url}`, { ...r, info: { ...r.info, token: undefined } });
        return 0;
      }
      case 'stop': {
        const r = await c.daemonStop(root);
        out(line(r.message), r);
        return 0;
      }
      case 'status': {
        const r = await c.daemonStatus(root);
        const { formatStatus } = await import('../daemon-report.js');
        // The secret files it names, as paths from here: what `evidex read` here takes (and what `evidex index` here prints).
        out(formatStatus(r, (f) => place.shown(f)), r);
        return r.running ? 0 : 3;
      }
      case 'run': {
        const { runDaemonForeground } = await import('../daemon-run.js');
        return runDaemonForeground(root.path);
      }
      default:
        throw new UsageError(unknownAction(action, place));
    }
  },
});
