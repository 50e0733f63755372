/** Password hashing with bcryptjs (pure JS, no native build step on any machine). */
import bcrypt from "bcryptjs";

const ROUNDS = 10;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, ROUNDS);
}

export function verifyPassword(password: string, hash: string | undefined): Promise<boolean> {
  // Compare against a fixed hash when the user is unknown so timing does not reveal it.
  return bcrypt.compare(
    password,
    hash ?? "$2b$10$CwTycUXWue0Thq9StjUM0uJ8.IxCzzCBpV2B6n5xMnkK0Y1Rj8b6e",
  );
}
