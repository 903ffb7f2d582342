// A moment as a person reads it (`05:28:13, 2 min ago`), for the CLI's text:
// the daemon reports times as ISO 8601 in UTC (status, answers' `catching_up`),
// which `--json` keeps, but a reader of `daemon status` or an answer's footer
// wants the clock on their wall and how long ago that was.

/** `iso` (an ISO 8601 time) in local time, with its age at `now`: the date too when it is not today. Anything unreadable is given back as it is. */
export function when(iso: string, now: number = Date.now()): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${clock(iso, now)}, ${age(now - t)}`;
}

/** `iso` in local time alone (`05:28:13`; the date too when it is not today at `now`), for a line where its age goes without saying. */
export function clock(iso: string, now: number = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const at = new Date(t), today = new Date(now);
  const two = (n: number): string => String(n).padStart(2, '0');
  const time = `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
  const sameDay = at.getFullYear() === today.getFullYear() && at.getMonth() === today.getMonth() && at.getDate() === today.getDate();
  return sameDay ? time : `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${time}`;
}

/** How long `ms` is, as "ago" says it: seconds, minutes, hours, then days; a time ahead of now (another clock) is said so. */
function age(ms: number): string {
  if (ms < 0) return 'ahead of this clock';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  const d = Math.floor(s / 86400);
  return `${d} ${d === 1 ? 'day' : 'days'} ago`;
}

/** `text` (a daemon's sentence, such as the root note's `(since 2026-12-07T06:51:08.457Z)`) with each ISO 8601 UTC time in it said as when() says it. */
export function whenIn(text: string, now: number = Date.now()): string {
  return text.replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g, (iso) => when(iso, now));
}
