/**
 * One spelling per address: emails are NFKC-normalised (full-width `ａdmin@…` is `admin@…`) and
 * lowercased before they are stored or looked up, and characters that do not show (zero-width,
 * bidi controls, soft hyphen, control codes) are refused, so two accounts never look alike.
 * Lookalikes that are different characters (a Cyrillic `а`, a dotless `ı`) share a confusable
 * skeleton (`emailSkeleton`), which the user plugin keeps unique.
 */
import unhomoglyph from "unhomoglyph";

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

/**
 * Why `value` is not acceptable for a new account, or undefined: `emailProblem`, and a domain
 * that ends in a dot (`alice@example.com.` names the same host as `alice@example.com`) or has
 * an empty label. Sign-in keeps `emailProblem` alone, so accounts made before still sign in.
 */
export function newEmailProblem(value: unknown): string | undefined {
  const problem = emailProblem(value);
  if (problem) return problem;
  const domain = normalizeEmail(value as string).split("@")[1] ?? "";
  if (domain.endsWith(".")) return "may not end with a dot";
  if (domain.startsWith(".") || domain.includes("..")) return "must be an email address";
  return undefined;
}

/**
 * The address's confusable skeleton (Unicode UTS #39: NFD, each character mapped to its
 * prototype in Unicode's confusables data, NFD again), taken of the stored form: two addresses
 * with one skeleton look alike (`аlice@` with a Cyrillic а, `alıce@`, `rn` for `m`). Not for
 * showing anyone: it only says whether two addresses can be told apart.
 */
export function emailSkeleton(email: string): string {
  return unhomoglyph(normalizeEmail(email).normalize("NFD")).normalize("NFD");
}
