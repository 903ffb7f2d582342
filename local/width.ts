// How many terminal columns text takes, for lines that must fit the terminal's
// width (a spinner redrawn in place wraps, and floods the screen, once it is
// wider): a wide East Asian character or an emoji takes two, a combining mark
// or a zero-width character none, anything else one.

/** Wide (W) and fullwidth (F) East Asian ranges, and emoji shown as pictures. */
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]|\p{Extended_Pictographic}/u;
/** Characters that take no column of their own. */
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}\u200b]$/u;

/** The columns one grapheme takes. */
export function graphemeWidth(g: string): number {
  const first = String.fromCodePoint(g.codePointAt(0)!);
  if (ZERO.test(first)) return 0;
  return WIDE.test(first) ? 2 : 1;
}

// Made on first use: making one loads ICU's break rules, which costs a command
// that never measures a line (a tool call's output is not cut) about as much
// CPU as all of its own code (docs/performance/cli-start.md).
let segmenter: Intl.Segmenter | undefined;

/** `s` split into graphemes (a letter with its combining marks, an emoji sequence: one each). */
export function graphemes(s: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(segmenter.segment(s), (x) => x.segment);
}
