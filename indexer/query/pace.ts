// How a long answer shares the process with other requests. A tool whose
// work grows with the index (search_code over a million matching lines,
// find_symbol for a name defined 100,000 times, find_importers through a
// chain of barrels) is written as a generator that asks `due()` at its
// natural stopping points and yields when it says so; `answerPaced` drives it. Without a Pace it runs to
// the end at once (the CLI, tests, any caller alone with the index). With one
// (the daemon's fair scheduler) it stops after each slice and goes on when
// `pause()` resolves, so other clients are answered in between.
//
// An answer must come from one state of the index: every write commits and
// patches memory in one synchronous step, which can fall between two slices.
// So the driver compares the generation before and after each pause, and an
// answer that saw a write starts again from the beginning. After
// MAX_RESTARTS it runs the rest in one go: writes that keep landing (a
// checkout of thousands of files) cannot keep a query from finishing.

/** A slice clock and the way back in, given by whoever schedules the work. */
export interface Pace {
  /** True once the current slice is used up: the work should yield. */
  due(): boolean;
  /** Ends the current slice; resolves when the work may run its next one. */
  pause(): Promise<void>;
}

/** An answer in slices: yields (nothing) wherever `due()` said stop, returns the answer. */
export type Slices<T> = (due: () => boolean) => Generator<void, T, void>;

const never = (): boolean => false;

/** Restarts after a write landed mid-answer before the answer runs in one go. */
export const MAX_RESTARTS = 2;

/** Runs `slices` to its answer: at once without a pace (a value), else a slice per turn (a value when one slice was enough). */
export function answerPaced<T>(slices: Slices<T>, pace: Pace | undefined, generation: () => number): T | Promise<T> {
  let gen = generation();
  let it = slices(pace ? () => pace.due() : never);
  const first = it.next();
  if (first.done) return first.value;
  if (!pace) throw new Error('internal: an answer yielded with no pace to yield to');
  return (async () => {
    for (let restarts = 0; ;) {
      await pace.pause();
      if (generation() !== gen) {
        restarts++;
        gen = generation();
        it = slices(restarts >= MAX_RESTARTS ? never : () => pace.due());
      }
      const r = it.next();
      if (r.done) return r.value;
    }
  })();
}
