/**
 * `ADMIN_EMAIL`: the user who signs up or logs in with this email becomes an admin (sees
 * `/users` and the users_list and users_read tools). The example does not verify emails, so
 * sign up with it yourself before anyone else can reach the server: whoever claims the email
 * first gets the role.
 */
import type { User as Caller, JwtAuthOptions } from "../src/index.js";
import { User } from "./models/User.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The configured admin email, normalized as the user model stores emails (trimmed, lowercase). */
export function adminEmailFrom(value: string | undefined): string | undefined {
  const email = value?.trim().toLowerCase();
  if (!email) return undefined;
  if (!EMAIL.test(email)) throw new Error(`ADMIN_EMAIL must be an email address, got "${value}".`);
  return email;
}

/** JWT hooks that make the user with `email` an admin when it signs up or logs in. */
export function adminHooks(
  email: string | undefined,
): Pick<JwtAuthOptions, "onSignup" | "onLogin"> {
  if (!email) return {};
  const promote = async (user: Caller) => {
    if (user.email !== email || user.admin === true) return;
    await User.updateOne({ _id: user.id }, { $set: { admin: true } }).exec();
  };
  return { onSignup: promote, onLogin: promote };
}
