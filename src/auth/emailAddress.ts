/**
 * One spelling per address: emails are NFKC-normalised (full-width `ａdmin@…` is `admin@…`) and
 * lowercased before they are stored or looked up, and characters that do not show (zero-width,
 * bidi controls, soft hyphen, control codes) are refused, so two accounts never look alike.
 */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/**
 * Control, format (zero-width, bidi, soft hyphen, BOM), private-use, unassigned and separator
 * characters, and the blank letters Unicode classes as letters (Hangul fillers, braille blank).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Z}\u115F\u1160\u3164\uFFA0\u2800]/u;

/** The address as stored and compared: NFKC, lowercased (never trimmed: a space is refused). */
export function normalizeEmail(raw: string): string {
  return raw.normalize("NFKC").toLowerCase();
}

/** Why `value` is not an acceptable email, or undefined when it is. */
export function emailProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return "must be an email address";
  const email = normalizeEmail(value);
  if (INVISIBLE.test(email)) return "may not contain invisible or control characters";
  if (!EMAIL.test(email) || email.length > 254) return "must be an email address";
  return undefined;
}
