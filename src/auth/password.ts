/** Password hashing with bcryptjs (pure JS, no native build step on any machine). */
import bcrypt from "bcryptjs";
import { validationFailed } from "../core/errors.js";

const ROUNDS = 10;

/** Shortest password accepted, in characters (Unicode code points). */
export const MIN_PASSWORD_LENGTH = 8;
/**
 * Longest password accepted, in UTF-8 bytes. bcrypt reads only the first 72 bytes, so a longer
 * password would log in with any suffix; it is refused instead.
 */
export const MAX_PASSWORD_BYTES = 72;

/** Why `password` is not acceptable, or `undefined` when it is. */
export function passwordProblem(password: unknown): string | undefined {
  if (typeof password !== "string") return "must be a string";
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  }
  if (Buffer.byteLength(password, "utf8") > MAX_PASSWORD_BYTES) {
    return `must be at most ${MAX_PASSWORD_BYTES} bytes in UTF-8 (bcrypt ignores the rest)`;
  }
  return undefined;
}

/** Hashes a password; throws a 400 (`fields.password`) for one outside the bounds above. */
export function hashPassword(password: string): Promise<string> {
  const problem = passwordProblem(password);
  if (problem) {
    return Promise.reject(validationFailed("Invalid password.", { password: problem }));
  }
  return bcrypt.hash(password, ROUNDS);
}

export async function verifyPassword(password: string, hash: string | undefined): Promise<boolean> {
  // Longer than bcrypt reads: it could only match through truncation, so it never matches.
  const tooLong =
    typeof password !== "string" || Buffer.byteLength(password, "utf8") > MAX_PASSWORD_BYTES;
  // Compare against a fixed hash when the user is unknown so timing does not reveal it.
  const matches = await bcrypt.compare(
    tooLong ? "" : password,
    hash ?? "$2b$10$CwTycUXWue0Thq9StjUM0uJ8.IxCzzCBpV2B6n5xMnkK0Y1Rj8b6e",
  );
  return matches && !tooLong;
}
