// What test/run.mjs keeps of a test file's uvu output: the lines the file
// printed itself (agreement counts, latencies, skip reasons), without uvu's own
// marks. uvu writes, per suite, the suite's name (a named suite only: `suite('ollama')`),
// a mark per test (• passed, ✘ failed) and its counter `(passed / total)`, then
// the totals; with colours off (FORCE_COLOR=0) the name is written ` NAME  `.
// A line holding only those is no figure: kept, it printed a bare suite name.

const COLOURS = /\x1b\[[0-9;]*m/g;
const COUNTER = /\(\s*\d+\s*\/\s*\d+\s*\)/g;
const MARKS = /[•✘]\s*/g;
/** A suite's whole progress line: its name, its marks and its counter, nothing printed between. */
const SUITE_LINE = /^ [^•✘]*? {2}(?:[•✘] )*\s*\(\s*\d+\s*\/\s*\d+\s*\)\s*$/;

/** The lines a test file printed itself: uvu's progress marks, suite names, counters and summary removed. */
export function figures(out) {
  return out.replace(COLOURS, '').split('\n')
    .filter((l) => !/^\s*(Total|Passed|Skipped|Duration):/.test(l) && !SUITE_LINE.test(l))
    .map((l) => l.replace(MARKS, '').replace(COUNTER, '').trim())
    .filter((l) => l.length > 0);
}
