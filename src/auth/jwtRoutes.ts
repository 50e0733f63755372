/**
 * The built-in JWT routes: signup, login, refresh_token, logout, password and me. Bodies are
 * allowlisted field by field so signup can never set `admin` or any other privileged field.
 * Every response of these routes carries `Cache-Control: no-store`: several carry tokens.
 */
import express, { type Request, type Router } from "express";
import { type FieldErrors, unauthenticated, validationFailed } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { modelView, presentDocument } from "../core/present.js";
import type { AnyModel, User } from "../core/types.js";
import { errorMiddleware } from "../http/sendError.js";
import { rateLimited } from "../ops/loginLockout.js";
import { clientIp, type LoginGuard } from "../ops/rateLimit.js";
import {
  createDeviceToken,
  deviceCookie,
  deviceTokenInBody,
  deviceTokenModel,
  presentedDeviceToken,
} from "./deviceTokens.js";
import { revokeUserGrants } from "./grantRevocation.js";
import { issueTokens, type JwtAuthOptions, loadActiveUser } from "./jwt.js";
import { judgeLogin } from "./loginJudge.js";
import { hashPassword, passwordProblem, verifyPassword } from "./password.js";
import { callerOf, noStore, sessionCallerOf, wrap } from "./routeHelpers.js";
import {
  consumeRefreshToken,
  findRefreshToken,
  refreshTokenModel,
  revokeRefreshFamily,
  revokeUserSessions,
} from "./sessions.js";
import { createAccount, readCredentials } from "./signup.js";
import { toUser } from "./userPlugin.js";

type Body = Record<string, unknown>;

function readBody(req: Request): Body {
  const body: unknown = req.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed("The body must be a JSON object.", { "(root)": "must be an object" });
  }
  return body as Body;
}

/** Refuses any key outside `allowed` (400 naming each). */
function refuseUnknownKeys(body: Body, allowed: readonly string[], errors: FieldErrors): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) errors[key] = "is not an allowed field";
  }
}

/** `{deviceToken}` for an API client; nothing for a browser, which has the HttpOnly cookie. */
function deviceTokenField(req: Request, deviceToken: string): { deviceToken?: string } {
  return deviceTokenInBody(req.headers) ? { deviceToken } : {};
}

const SESSION_ONLY = "This route needs a signed-in session; an access token cannot use it.";

export interface JwtRouteServices {
  /** Where server faults are reported: the app's logger. */
  logger: Logger;
  /** The app's login lockout (src/ops/loginLockout.ts), when rate limits are on. */
  loginGuard?: LoginGuard;
}

export function jwtRoutes(
  userModel: AnyModel,
  options: JwtAuthOptions,
  { logger, loginGuard }: JwtRouteServices,
): Router {
  const router = express.Router();
  // Registered now, so its indexes are built before the first request needs them.
  refreshTokenModel(userModel.db);
  const refreshTokens = () => refreshTokenModel(userModel.db);

  router.use(noStore);

  router.post(
    "/signup",
    wrap(async (req, res) => {
      const user = await createAccount(userModel, options, readBody(req));
      res.status(201).json({ data: await issueTokens(userModel, options, String(user._id)) });
    }),
  );

  router.post(
    "/login",
    wrap(async (req, res) => {
      const body = readBody(req);
      const { email, password } = readCredentials(body, ["deviceToken"]);
      const verdict = await judgeLogin(userModel, loginGuard, {
        email,
        password,
        ip: clientIp(req),
        deviceToken: presentedDeviceToken(body, req.headers.cookie),
      });
      if (verdict.kind === "locked") {
        throw rateLimited("Too many failed logins for this account.", verdict.seconds);
      }
      if (verdict.kind === "invalid") throw unauthenticated("Invalid email or password.");
      if (verdict.kind === "disabled") throw unauthenticated("This user is disabled.");
      const { user, deviceToken } = verdict;
      await options.onLogin?.(toUser(user));
      const tokens = await issueTokens(userModel, options, String(user._id));
      res.setHeader("Set-Cookie", deviceCookie(deviceToken, req.secure));
      res.json({ data: { ...tokens, ...deviceTokenField(req, deviceToken) } });
    }),
  );

  router.post(
    "/refresh_token",
    wrap(async (req, res) => {
      const { refreshToken } = readBody(req);
      if (typeof refreshToken !== "string") {
        throw validationFailed("A refreshToken is required.", { refreshToken: "must be a string" });
      }
      // Spends the token (once, across all instances); a spent one revokes its family.
      const spent = await consumeRefreshToken(refreshTokens(), refreshToken);
      let user: User;
      try {
        user = await loadActiveUser(userModel, spent.userId);
      } catch (error) {
        await revokeRefreshFamily(refreshTokens(), spent.familyId);
        throw error;
      }
      res.json({ data: await issueTokens(userModel, options, user.id, spent) });
    }),
  );

  // Signs out: with `refreshToken`, that session (its family); without, every session of the
  // caller. Access tokens already issued stay valid until they expire.
  router.post(
    "/logout",
    wrap(async (req, res) => {
      const user = sessionCallerOf(req, SESSION_ONLY);
      const body = req.body === undefined ? {} : readBody(req);
      const errors: FieldErrors = {};
      refuseUnknownKeys(body, ["refreshToken"], errors);
      const { refreshToken } = body;
      if (refreshToken !== undefined && typeof refreshToken !== "string") {
        errors.refreshToken = "must be a string";
      }
      if (Object.keys(errors).length > 0) throw validationFailed("Invalid logout body.", errors);
      if (typeof refreshToken === "string") {
        const record = await findRefreshToken(refreshTokens(), refreshToken);
        // Someone else's or an unknown token: nothing of the caller's to revoke.
        if (record && String(record.userId) === user.id) {
          await revokeRefreshFamily(refreshTokens(), record.familyId);
        }
      } else {
        await revokeUserSessions(user.id, userModel.db);
      }
      res.status(204).end();
    }),
  );

  // Changes the caller's password, revokes all their sessions, and starts a new one.
  router.post(
    "/password",
    wrap(async (req, res) => {
      const user = sessionCallerOf(req, SESSION_ONLY);
      const body = readBody(req);
      const errors: FieldErrors = {};
      refuseUnknownKeys(body, ["currentPassword", "newPassword"], errors);
      if (typeof body.currentPassword !== "string") errors.currentPassword = "must be a string";
      const newPasswordError = passwordProblem(body.newPassword);
      if (newPasswordError) errors.newPassword = newPasswordError;
      if (Object.keys(errors).length > 0) throw validationFailed("Invalid password body.", errors);
      const doc = await userModel.findById(user.id).select("+passwordHash").exec();
      if (!doc) throw unauthenticated("The user no longer exists.");
      if (!(await verifyPassword(body.currentPassword as string, doc.get("passwordHash")))) {
        throw validationFailed("The current password is incorrect.", {
          currentPassword: "is incorrect",
        });
      }
      doc.set("passwordHash", await hashPassword(body.newPassword as string));
      await doc.save();
      // authUserPlugin's hook has ended every grant already (refresh tokens, device tokens,
      // PATs, OAuth grants); this covers user models without it.
      await revokeUserGrants(user.id, userModel.db);
      // The client that made the change keeps a known device: a fresh token, as after a login.
      const deviceToken = await createDeviceToken(deviceTokenModel(userModel.db), user.id);
      res.setHeader("Set-Cookie", deviceCookie(deviceToken, req.secure));
      const tokens = await issueTokens(userModel, options, user.id);
      res.json({ data: { ...tokens, ...deviceTokenField(req, deviceToken) } });
    }),
  );

  // The caller's user as REST shows any document of the model: through its view, so whatever
  // the schema hides (`select: false`) stays hidden however the document was loaded.
  router.get(
    "/me",
    wrap(async (req, res) => {
      const user = callerOf(req);
      const doc = await userModel.findById(user.id).exec();
      if (!doc) throw unauthenticated("The user no longer exists.");
      res.json({ data: presentDocument(modelView(userModel, "rest"), doc) });
    }),
  );

  router.use(errorMiddleware(logger));
  return router;
}
