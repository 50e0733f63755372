/**
 * The AuthProvider for Better Auth sessions: a session cookie or `Authorization: Bearer
 * <session token>` becomes the app's own user, found by email or created on first sight.
 */
import { randomBytes } from "node:crypto";
import type { Document } from "mongoose";
import { unauthenticated } from "../core/errors.js";
import type { AnyModel } from "../core/types.js";
import type { AuthProvider, RequestHeaders } from "./callerResolver.js";
import { backfillEmailSkeletons } from "./emailSkeletonBackfill.js";
import { toUser } from "./userPlugin.js";

/** The fields of a Better Auth user the mapping reads. */
export interface BetterAuthSessionUser {
  id: string;
  email: string;
  name?: string | null;
  emailVerified?: boolean | null;
}

/** What the framework needs of a Better Auth instance; `createBetterAuth()`'s result fits. */
export interface BetterAuthInstance {
  handler: (request: Request) => Promise<Response>;
  options: { basePath?: string };
  api: {
    getSession(context: { headers: Headers }): Promise<{ user: BetterAuthSessionUser } | null>;
  };
  $context: Promise<{ authCookies: { sessionToken: { name: string } } }>;
}

export interface BetterAuthProviderOptions {
  userModel: AnyModel;
  linkUnverifiedEmails?: boolean;
}

/**
 * App users created from a Better Auth user get this prefix on a random, non-bcrypt
 * `passwordHash`: password login can never match it, and it marks the account as Better
 * Auth's own, so it is linked again without an email-verification check.
 */
const BETTER_AUTH_HASH_PREFIX = "!better-auth!";

const header = (headers: RequestHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join("; ") : value;
};

function hasCookie(cookieHeader: string | undefined, name: string): boolean {
  if (!cookieHeader) return false;
  return cookieHeader.split(";").some((part) => part.trimStart().startsWith(`${name}=`));
}

function toWebHeaders(headers: RequestHeaders): Headers {
  const web = new Headers();
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) web.append(key, item);
  }
  return web;
}

const isDuplicateKey = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === 11000;

async function findByEmail(userModel: AnyModel, email: string): Promise<Document | null> {
  return userModel
    .findOne({ email: { $eq: email } })
    .select("+passwordHash")
    .exec();
}

async function createAppUser(
  userModel: AnyModel,
  email: string,
  source: BetterAuthSessionUser,
): Promise<Document> {
  const fields: Record<string, unknown> = {
    email,
    passwordHash: BETTER_AUTH_HASH_PREFIX + randomBytes(32).toString("base64url"),
  };
  const namePath = userModel.schema.path("name");
  if (namePath && typeof source.name === "string" && source.name) {
    const max = (namePath.options as { maxlength?: unknown }).maxlength;
    fields.name = typeof max === "number" ? source.name.slice(0, max) : source.name;
  }
  await backfillEmailSkeletons(userModel);
  try {
    return await userModel.create(fields);
  } catch (error) {
    // Two first requests raced; the other one created the user.
    const existing = isDuplicateKey(error) ? await findByEmail(userModel, email) : null;
    if (existing) return existing;
    // Not this email but a lookalike of it (the skeleton's unique index, userPlugin.ts).
    if (isDuplicateKey(error)) {
      throw unauthenticated(
        "This email looks the same as the email of an existing account; sign up with another email.",
      );
    }
    throw error;
  }
}

async function appUserFor(
  options: BetterAuthProviderOptions,
  source: BetterAuthSessionUser,
): Promise<Document> {
  const email = source.email.toLowerCase().trim();
  const doc =
    (await findByEmail(options.userModel, email)) ??
    (await createAppUser(options.userModel, email, source));
  const ownAccount = String(doc.get("passwordHash") ?? "").startsWith(BETTER_AUTH_HASH_PREFIX);
  if (!ownAccount && source.emailVerified !== true && !options.linkUnverifiedEmails) {
    throw unauthenticated(
      "This email belongs to an existing account; verify the email with Better Auth to link it.",
    );
  }
  if (doc.get("disabled") === true) throw unauthenticated("This user is disabled.");
  return doc;
}

export function betterAuthProvider(
  auth: BetterAuthInstance,
  options: BetterAuthProviderOptions,
): AuthProvider {
  const { userModel } = options;
  if (!userModel.schema.path("email") || !userModel.schema.path("passwordHash")) {
    throw new Error("betterAuthPlugin: the userModel needs authUserPlugin (email, passwordHash).");
  }
  // The cookie's name depends only on configuration, never on a caller.
  const sessionCookie = auth.$context.then((ctx) => ctx.authCookies.sessionToken.name);
  // A broken configuration surfaces on the first request (as a 500), not as an unhandled rejection.
  sessionCookie.catch(() => {});
  return {
    name: "better-auth",
    async resolve(headers) {
      const hasBearer = /^bearer\s/i.test(header(headers, "authorization") ?? "");
      if (!hasBearer && !hasCookie(header(headers, "cookie"), await sessionCookie)) {
        return undefined;
      }
      let session: { user: BetterAuthSessionUser } | null;
      try {
        session = await auth.api.getSession({ headers: toWebHeaders(headers) });
      } catch (error) {
        // Better Auth's APIError, matched by shape: importing its class costs ~300 ms at startup.
        if (error instanceof Error && (error as { statusCode?: unknown }).statusCode === 401) {
          throw unauthenticated("The session is invalid or has expired.");
        }
        throw error;
      }
      if (!session) throw unauthenticated("The session is invalid or has expired.");
      return { ...toUser(await appUserFor(options, session.user)), authMethod: "better-auth" };
    },
  };
}
