// How a range of lines is written wherever the CLI names one: `12` for one
// line, `12-30` for more — the shape editors and grep users read as a place
// to jump to (`path:12-12:` is not one).

/** `start` alone when the range is one line, else `start-end`. */
export function lineSpan(e: { start_line: number; end_line: number }): string {
  return e.start_line === e.end_line ? `${e.start_line}` : `${e.start_line}-${e.end_line}`;
}
