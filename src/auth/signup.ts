/**
 * Creating an account, the one way every sign-up surface does it (`POST /auth/signup` and the
 * OAuth sign-in page): the credentials checked field by field (email, password, the allowed
 * extra fields, nothing privileged), the user created, then the app's `onSignup` hook. An email
 * that looks like an existing account's (the same confusable skeleton) is refused by the
 * insert itself: the skeleton's unique index (userPlugin.ts).
 */
import type { HydratedDocument } from "mongoose";
import { type FieldErrors, TerrenoError, validationFailed } from "../core/errors.js";
import { assertNoForbiddenKeys } from "../core/inputSafety.js";
import type { AnyModel } from "../core/types.js";
import { emailProblem, newEmailProblem, normalizeEmail } from "./emailAddress.js";
import { backfillEmailSkeletons } from "./emailSkeletonBackfill.js";
import type { JwtAuthOptions } from "./jwt.js";
import { hashPassword, passwordProblem } from "./password.js";
import { toUser } from "./userPlugin.js";

type Body = Record<string, unknown>;

/** What decides who may sign up and with what: the app's `auth.jwt` options. */
export type SignupRules = Pick<JwtAuthOptions, "signupFields" | "onSignup">;

/** The extra fields signup accepts (`signupFields`, default `name`) that the model has. */
export function signupFieldsOf(userModel: AnyModel, rules: SignupRules): string[] {
  return (rules.signupFields ?? ["name"]).filter((field) => userModel.schema.path(field));
}

/**
 * `{email, password}` from a credentials body, refusing (400, naming each field) any key
 * outside them and `allowed`, a bad email (by `emailRule`; sign-up's is stricter) or password,
 * and a non-string extra field.
 */
export function readCredentials(
  body: Body,
  allowed: readonly string[],
  emailRule: (value: unknown) => string | undefined = emailProblem,
): { email: string; password: string } {
  // NUL characters and lone surrogates, named by field, as on every other surface.
  assertNoForbiddenKeys(body, "credentials body");
  const errors: FieldErrors = {};
  for (const key of Object.keys(body)) {
    if (key !== "email" && key !== "password" && !allowed.includes(key))
      errors[key] = "is not an allowed field";
  }
  const emailError = emailRule(body.email);
  if (emailError) errors.email = emailError;
  const passwordError = passwordProblem(body.password);
  if (passwordError) errors.password = passwordError;
  for (const key of allowed) {
    const value = body[key];
    if (value !== undefined && typeof value !== "string") errors[key] = "must be a string";
  }
  if (Object.keys(errors).length > 0) throw validationFailed("Invalid credentials body.", errors);
  return { email: normalizeEmail(body.email as string), password: body.password as string };
}

const isDuplicateKey = (error: unknown) => {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 11000 || (typeof message === "string" && /UNIQUE constraint/.test(message));
};

/** The refusal for a duplicate key: the email itself is taken, or a lookalike of it is. */
async function takenEmail(userModel: AnyModel, email: string, cause: unknown) {
  if (await userModel.exists({ email: { $eq: email } })) {
    return new TerrenoError("conflict", "An account with this email already exists.", undefined, {
      cause,
    });
  }
  // Says no more than a taken email does: that some account has it, not which one.
  return new TerrenoError(
    "conflict",
    "An account with an email that looks the same as this one already exists.",
    { email: "looks the same as the email of an existing account; use another email" },
    { cause },
  );
}

/**
 * Creates the account `body` describes (400 for bad credentials, 409 for a taken email or a
 * lookalike of one), then runs `onSignup` with the new user; a hook that throws fails the
 * sign-up (the user stays).
 */
export async function createAccount(
  userModel: AnyModel,
  rules: SignupRules,
  body: Body,
): Promise<HydratedDocument<unknown>> {
  const fields = signupFieldsOf(userModel, rules);
  const { email, password } = readCredentials(body, fields, newEmailProblem);
  const extra: Body = {};
  for (const field of fields) if (body[field] !== undefined) extra[field] = body[field];
  await backfillEmailSkeletons(userModel);
  let user: HydratedDocument<unknown>;
  try {
    user = await userModel.create({ ...extra, email, passwordHash: await hashPassword(password) });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    throw await takenEmail(userModel, email, error);
  }
  await rules.onSignup?.(toUser(user));
  return user;
}
