// The CLI run on the command line: main() (cli.ts) with process.argv, its exit
// code, and an early-closed stdout or stderr taken as the reader's choice.
import { human, stderr, stdout } from '../local/human.js';
import { errorsAsJson, main, printJsonError } from './cli.js';

// `evidex search x | head` closes our stdout early, `evidex search x 2>&1 | head` our stderr too:
// that is the reader's choice, not an error.
const readerGone = (e: NodeJS.ErrnoException): void => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
};
stdout().onError(readerGone);
stderr().onError(readerGone);

const argv = process.argv.slice(2);
// main() reports every error itself; this is for one it could not report (its error module failed to load).
main(argv).then((code) => { process.exitCode = code; }, (e: unknown) => {
  const message = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' ');
  if (errorsAsJson(argv)) printJsonError('internal_error', message);
  else stderr().line(human`evidex: ${message}`);
  process.exitCode = 1;
});
