/**
 * Personal access token routes, mounted at `<auth path>/tokens` (default `/auth/tokens`):
 *
 * - `POST /` `{name, scope: "read"|"write", expiresInDays?, workspaceId?}` → 201 `{data: {id,
 *   name, scope, expiresAt, workspaceId, token}}`. A token with a `workspaceId` (one of the
 *   caller's workspaces, else 404) acts in that workspace only. The token is shown this once. Only a session may create tokens (a
 *   personal or OAuth token gets 403). Rate limited per IP with the auth routes (src/ops/rateLimit.ts).
 * - `GET /` → the caller's unexpired tokens, without values.
 * - `DELETE /:id` → 204; 404 for a token that is not the caller's. Effective on the next request.
 */
import express, { type Router } from "express";
import { type FieldErrors, notFound, TerrenoError, validationFailed } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { scopeRefusal, scopesAllow } from "../core/scopes.js";
import type { AnyModel } from "../core/types.js";
import type { WorkspaceDirectory } from "../core/workspaceTypes.js";
import { errorMiddleware } from "../http/sendError.js";
import {
  accessTokenModel,
  countPersonalTokens,
  createPersonalToken,
  DEFAULT_PERSONAL_TOKEN_OPTIONS,
  listPersonalTokens,
  PERSONAL_TOKEN_SCOPES,
  type PersonalTokenOptions,
  type PersonalTokenScope,
  revokePersonalToken,
} from "./personalTokens.js";
import { callerOf, noStore, sessionCallerOf, wrap } from "./routeHelpers.js";

interface CreateBody {
  name: string;
  scope: PersonalTokenScope;
  expiresInDays: number;
  workspaceId?: string;
}

function readCreateBody(body: unknown, options: Required<PersonalTokenOptions>): CreateBody {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed("The body must be a JSON object.", { "(root)": "must be an object" });
  }
  const { name, scope, expiresInDays, workspaceId, ...rest } = body as Record<string, unknown>;
  const errors: FieldErrors = {};
  for (const key of Object.keys(rest)) errors[key] = "is not an allowed field";
  const trimmed = typeof name === "string" ? name.trim() : "";
  if (typeof name !== "string" || trimmed.length < 1 || trimmed.length > 100) {
    errors.name = "must be a string of 1 to 100 characters";
  }
  if (!PERSONAL_TOKEN_SCOPES.includes(scope as PersonalTokenScope)) {
    errors.scope = 'must be "read" or "write"';
  }
  const max = options.maxExpiresInDays;
  if (
    expiresInDays !== undefined &&
    (typeof expiresInDays !== "number" ||
      !Number.isInteger(expiresInDays) ||
      expiresInDays < 1 ||
      expiresInDays > max)
  ) {
    errors.expiresInDays = `must be a whole number of days from 1 to ${max}`;
  }
  if (workspaceId !== undefined && (typeof workspaceId !== "string" || workspaceId.length === 0)) {
    errors.workspaceId = "must be the id of one of your workspaces";
  }
  if (Object.keys(errors).length > 0) throw validationFailed("Invalid token request.", errors);
  return {
    name: trimmed,
    scope: scope as PersonalTokenScope,
    expiresInDays: (expiresInDays as number | undefined) ?? options.defaultExpiresInDays,
    ...(typeof workspaceId === "string" ? { workspaceId } : {}),
  };
}

/** A token may be bound only to a workspace the caller is a member of: else 404, as for any. */
async function checkWorkspace(
  workspaces: WorkspaceDirectory | undefined,
  userId: string,
  workspaceId: string | undefined,
): Promise<void> {
  if (workspaceId === undefined) return;
  if (!workspaces) {
    throw validationFailed("This app has no workspaces.", {
      workspaceId: "is not an allowed field",
    });
  }
  const mine = await workspaces.membershipsOf(userId);
  if (!mine.some((m) => m.workspaceId === workspaceId)) {
    throw notFound("The workspace was not found.");
  }
}

export function personalTokenRoutes(
  userModel: AnyModel,
  personalTokenOptions: PersonalTokenOptions,
  logger: Logger,
  workspaces?: WorkspaceDirectory,
): Router {
  const options = { ...DEFAULT_PERSONAL_TOKEN_OPTIONS, ...personalTokenOptions };
  if (options.defaultExpiresInDays > options.maxExpiresInDays) {
    throw new Error("personalTokens: defaultExpiresInDays exceeds maxExpiresInDays.");
  }
  const router = express.Router();
  const tokens = () => accessTokenModel(userModel.db);

  router.use(noStore);

  router.post(
    "/",
    wrap(async (req, res) => {
      // A token minting tokens would outlive its own revocation: only a signed-in session may.
      const user = sessionCallerOf(
        req,
        "Personal access tokens can only be created from a signed-in session, not with another token.",
      );
      const body = readCreateBody(req.body, options);
      await checkWorkspace(workspaces, user.id, body.workspaceId);
      if ((await countPersonalTokens(tokens(), user.id)) >= options.maxPerUser) {
        throw new TerrenoError(
          "conflict",
          `You already have ${options.maxPerUser} personal access tokens; delete one first.`,
        );
      }
      const { token, info } = await createPersonalToken(tokens(), { userId: user.id, ...body });
      res.status(201).json({
        data: {
          id: info.id,
          name: info.name,
          scope: info.scope,
          expiresAt: info.expiresAt,
          ...(info.workspaceId ? { workspaceId: info.workspaceId } : {}),
          token,
        },
      });
    }),
  );

  router.get(
    "/",
    wrap(async (req, res) => {
      const user = callerOf(req);
      res.json({ data: await listPersonalTokens(tokens(), user.id) });
    }),
  );

  router.delete(
    "/:id",
    wrap(async (req, res) => {
      const user = callerOf(req);
      if (!scopesAllow(user.scopes, "write")) throw scopeRefusal(user.scopes);
      const id = String(req.params.id);
      if (!(await revokePersonalToken(tokens(), user.id, id))) {
        throw notFound("No personal access token of yours has this id.");
      }
      res.status(204).end();
    }),
  );

  router.use(errorMiddleware(logger));
  return router;
}
