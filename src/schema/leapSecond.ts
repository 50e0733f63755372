/**
 * RFC 3339 allows a 61st second at 23:59 UTC (`2031-06-30T23:59:60Z`, or the same instant in
 * another offset), and the schemas' `date-time` format accepts it, but JavaScript's Date
 * refuses it. POSIX time has no such second, so it is taken as the next one
 * (`2031-07-01T00:00:00Z`), in writes and in filters alike.
 */
const LEAP_SECOND = /^(.+[Tt]\d{2}:\d{2}:)60(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** The instant after the leap second `value` names; undefined when it names none. */
export function leapSecondAsNext(value: string): Date | undefined {
  const match = LEAP_SECOND.exec(value);
  if (!match) return undefined;
  const [, head, fraction = "", zone] = match;
  const before = new Date(`${head}59${fraction}${zone}`);
  if (Number.isNaN(before.getTime())) return undefined;
  if (before.getUTCHours() !== 23 || before.getUTCMinutes() !== 59) return undefined;
  return new Date(before.getTime() + 1000);
}
