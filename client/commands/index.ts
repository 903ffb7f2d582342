// `evidex index`: build or refresh the index with a progress line. Without a
// daemon the index is built in this process (client/index-command.ts, under
// the root's lock); when a daemon holds the root, it is asked to refresh and
// its progress is shown. Ctrl-C leaves a clean line and exits 130.
import { human, path, stderr, stdout } from '../../local/human.js';
import { Methods, Notifications, type BuildSummary } from '../../protocol/messages.js';
import type { LeftOutCounts } from '../../indexer/discover/left-out.js';
import { formatLeftOut, formatTsImports } from '../daemon-report.js';
import { CLIENT_NAME, defineCommand, HELP, JSON_FLAG, REPO, repoOf, unnamedRoot } from '../command.js';

export const command = defineCommand({
  usage: 'evidex index [--repo DIR] [--json]',
  summary: 'build or refresh the index, with progress',
  details: 'Without a daemon the index is built in this process; with one running, the daemon refreshes it.\n'
    + 'Unchanged files (same size, time and hash) are not parsed again. Ctrl-C stops it safely.',
  examples: ['evidex index', 'evidex index --repo ~/src/flask --json'],
  flags: { ...REPO, ...JSON_FLAG, ...HELP },
  async run(p) {
    const root = await repoOf(p);
    const json = Boolean(p.flags.json);
    const [{ ProgressLine }, { buildInProcess, DaemonBusy, whileHeld }] = await Promise.all([import('../progress.js'), import('../index-command.js')]);
    const bar = new ProgressLine(stderr(), json);
    // The default SIGINT exit would leave the progress line half drawn under the prompt.
    // An interrupted build is safe: the index is crash-safe, and the next run resumes it.
    // Then the process dies of the signal itself, as the shell expects of Ctrl-C (status 130):
    // a normal exit would tear down the parser threads mid-call, which aborts in native code.
    const onInterrupt = () => {
      bar.done();
      stderr().line(human`evidex: interrupted; the index is left as it was or partly refreshed, and \`evidex index\` resumes it`);
      process.kill(process.pid, 'SIGINT');
    };
    process.once('SIGINT', onInterrupt);
    const t0 = Date.now();
    type Summary = BuildSummary & { generation: number; indexBytes?: number; leftOut?: LeftOutCounts; via: 'daemon' | 'in-process' };
    let summary: Summary | undefined;
    let told = false;
    try {
      // Another `evidex index` building in its own process (or a daemon still starting) holds the lock:
      // wait for it, then build here (finding its work unchanged) or ask the daemon that now serves.
      while (summary === undefined) {
        try {
          summary = { ...await buildInProcess(root, (pr) => bar.update(pr), { unnamedRoot: unnamedRoot(p) }), via: 'in-process' };
        } catch (e) {
          if (!(e instanceof DaemonBusy)) throw e;
          const tell = () => {
            if (!told) stderr().line(human`evidex: another process (pid ${e.pid}) is building this index; waiting for it to finish`);
            told = true;
          };
          if (await whileHeld(e, tell) === 'daemon') break;
        }
      }
      if (summary === undefined) {
        // A daemon owns this root's index: ask it to refresh and show its progress.
        const { connect } = await import('../connection.js');
        const client = await connect(root, { autoStart: false, clientName: CLIENT_NAME });
        try {
          client.onNotification(Notifications.indexProgress, (params) => bar.update(params.progress));
          const refreshed = await client.request(Methods.indexRefresh);
          // What the walk left out, counted as `evidex daemon status` counts it.
          summary = { ...refreshed, leftOut: (await client.request(Methods.indexStatus)).index.leftOut, via: 'daemon' };
        } finally {
          await client.close();
        }
      }
    } finally {
      bar.done();
      process.off('SIGINT', onInterrupt);
    }
    if (json) {
      stdout().json({ root: root.path, ...summary });
    } else {
      const s = summary;
      const tsImports = formatTsImports(s.tsImports);
      const ts = tsImports === null ? '' : human`  ts/js   ${tsImports}\n`;
      const size = s.indexBytes !== undefined ? human`  index   ${(s.indexBytes / 1048576).toFixed(1)} MiB\n` : '';
      stdout().write(human`indexed ${path(root.path)} (${s.via})
  files   ${s.files} (${s.parsed} parsed, ${s.unchanged} unchanged, ${s.removed} removed)
  left out ${formatLeftOut(s.leftOut)}
  symbols ${s.symbols}
  imports ${s.imports}
${ts}  lines   ${s.lines}
${size}  seconds ${s.seconds.toFixed(2)} (wall ${((Date.now() - t0) / 1000).toFixed(2)})
`);
    }
    return 0;
  },
});
