/**
 * One spelling per address: emails are NFKC-normalised (full-width `ａdmin@…` is `admin@…`) and
 * lowercased before they are stored or looked up, and characters that do not show (zero-width,
 * bidi controls, soft hyphen, control codes) are refused, so two accounts never look alike.
 * Lookalikes that are different characters (a Cyrillic `а`, a dotless `ı`) share a confusable
 * skeleton (`emailSkeleton`), which the user plugin keeps unique.
 */
import { domainToUnicode } from "node:url";
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
 * The domain as mail delivery reads it (IDNA, UTS #46): `xn--` labels decoded and `。` a dot,
 * so `bücher.de` and `xn--bcher-kva.de` are one host; as written when it is no host name.
 */
function deliveryDomain(domain: string): string {
  return domainToUnicode(domain) || domain;
}

/**
 * Why `value` is not acceptable for a new account, or undefined: `emailProblem`, and a domain
 * that ends in a dot (`alice@example.com.` names the same host as `alice@example.com`) or has
 * an empty label. Sign-in keeps `emailProblem` alone, so accounts made before still sign in.
 */
export function newEmailProblem(value: unknown): string | undefined {
  const problem = emailProblem(value);
  if (problem) return problem;
  const domain = deliveryDomain(normalizeEmail(value as string).split("@")[1] ?? "");
  if (domain.endsWith(".")) return "may not end with a dot";
  if (domain.startsWith(".") || domain.includes("..")) return "must be an email address";
  return undefined;
}

/**
 * The address's confusable skeleton (Unicode UTS #39: NFD, each character mapped to its
 * prototype in Unicode's confusables data, NFD again), taken of the stored form with its domain
 * as mail delivery reads it: two addresses with one skeleton look alike (`аlice@` with a
 * Cyrillic а, `alıce@`, `rn` for `m`) or reach the same host (`xn--` labels). A dot above an
 * `i` or `j` (`i̇`, what `İ` lowercases to) shows nothing more, so it is dropped. Not for
 * showing anyone: it only says whether two addresses can be told apart.
 */
export function emailSkeleton(email: string): string {
  const normalized = normalizeEmail(email);
  const at = normalized.lastIndexOf("@");
  const address =
    at < 0 ? normalized : normalized.slice(0, at + 1) + deliveryDomain(normalized.slice(at + 1));
  return unhomoglyph(address.normalize("NFD"))
    .normalize("NFD")
    .replace(/([ij])\u0307/g, "$1");
}
