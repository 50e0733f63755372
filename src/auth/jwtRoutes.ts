/**
 * The built-in JWT routes: signup, login, refresh_token and me. Bodies are allowlisted
 * field by field so signup can never set `admin` or any other privileged field.
 */
import express, { type Request, type Response, type Router } from "express";
import { type FieldErrors, unauthenticated, validationFailed } from "../core/errors.js";
import { serializeDocument } from "../core/serialize.js";
import type { AnyModel, User } from "../core/types.js";
import { sendError } from "../rest/sendError.js";
import { issueTokens, type JwtAuthOptions, loadActiveUser, verifyToken } from "./jwt.js";
import { hashPassword, verifyPassword } from "./password.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MIN_PASSWORD = 8;
const MAX_PASSWORD = 200;

type Body = Record<string, unknown>;

function readBody(req: Request): Body {
  const body: unknown = req.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed("The body must be a JSON object.", { "(root)": "must be an object" });
  }
  return body as Body;
}

function readCredentials(
  body: Body,
  allowed: readonly string[],
): { email: string; password: string } {
  const errors: FieldErrors = {};
  for (const key of Object.keys(body)) {
    if (key !== "email" && key !== "password" && !allowed.includes(key))
      errors[key] = "is not an allowed field";
  }
  if (typeof body.email !== "string" || !EMAIL.test(body.email) || body.email.length > 254) {
    errors.email = "must be an email address";
  }
  if (typeof body.password !== "string") {
    errors.password = "must be a string";
  } else if (body.password.length < MIN_PASSWORD || body.password.length > MAX_PASSWORD) {
    errors.password = `must be ${MIN_PASSWORD} to ${MAX_PASSWORD} characters`;
  }
  for (const key of allowed) {
    const value = body[key];
    if (value !== undefined && typeof value !== "string") errors[key] = "must be a string";
  }
  if (Object.keys(errors).length > 0) throw validationFailed("Invalid credentials body.", errors);
  return { email: (body.email as string).toLowerCase().trim(), password: body.password as string };
}

type Handler = (req: Request, res: Response) => Promise<void>;
const wrap =
  (handle: Handler): Handler =>
  async (req, res) => {
    try {
      await handle(req, res);
    } catch (error) {
      sendError(res, error);
    }
  };

export function jwtRoutes(userModel: AnyModel, options: JwtAuthOptions): Router {
  const router = express.Router();
  const signupFields = (options.signupFields ?? ["name"]).filter((f) => userModel.schema.path(f));

  router.post(
    "/signup",
    wrap(async (req, res) => {
      const body = readBody(req);
      const { email, password } = readCredentials(body, signupFields);
      const extra: Body = {};
      for (const field of signupFields) if (body[field] !== undefined) extra[field] = body[field];
      const user = await userModel.create({
        ...extra,
        email,
        passwordHash: await hashPassword(password),
      });
      res.status(201).json({ data: issueTokens(options, String(user._id)) });
    }),
  );

  router.post(
    "/login",
    wrap(async (req, res) => {
      const { email, password } = readCredentials(readBody(req), []);
      const user = await userModel.findOne({ email }).select("+passwordHash").exec();
      const valid = await verifyPassword(password, user?.get("passwordHash"));
      if (!user || !valid) throw unauthenticated("Invalid email or password.");
      if (user.get("disabled") === true) throw unauthenticated("This user is disabled.");
      res.json({ data: issueTokens(options, String(user._id)) });
    }),
  );

  router.post(
    "/refresh_token",
    wrap(async (req, res) => {
      const { refreshToken } = readBody(req);
      if (typeof refreshToken !== "string") {
        throw validationFailed("A refreshToken is required.", { refreshToken: "must be a string" });
      }
      const user = await loadActiveUser(userModel, verifyToken(options, refreshToken, "refresh"));
      res.json({ data: issueTokens(options, user.id) });
    }),
  );

  router.get(
    "/me",
    wrap(async (req, res) => {
      const user = (req as Request & { user?: User }).user;
      if (!user) throw unauthenticated();
      const doc = await userModel.findById(user.id).exec();
      if (!doc) throw unauthenticated("The user no longer exists.");
      res.json({ data: serializeDocument(doc) });
    }),
  );

  return router;
}
