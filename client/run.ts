// The CLI run on the command line: main() (cli.ts) with process.argv, its exit
// code, and an early-closed stdout or stderr taken as the reader's choice.
import { human, stderr, stdout } from '../local/human.js';
import { main } from './cli.js';

// `evidex search x | head` closes our stdout early, `evidex search x 2>&1 | head` our stderr too:
// that is the reader's choice, not an error.
const readerGone = (e: NodeJS.ErrnoException): void => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
};
stdout().onError(readerGone);
stderr().onError(readerGone);

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e: unknown) => {
  stderr().line(human`evidex: ${(e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' ')}`);
  process.exitCode = 1;
});
