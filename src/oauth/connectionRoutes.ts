/**
 * Connected apps, mounted by the OAuth server at `<auth path>/connections` (default
 * `/auth/connections`): `GET /` lists the OAuth clients the signed-in user has granted,
 * `DELETE /:clientId` revokes one (204; 404 for a client this user has not granted). Only a
 * signed-in session may use them: a connected app (or a PAT) cannot list or revoke the others.
 */
import express, { type Router } from "express";
import type { Connection } from "mongoose";
import { noStore, sessionCallerOf, wrap } from "../auth/routeHelpers.js";
import { notFound } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { errorMiddleware } from "../http/sendError.js";
import type { OAuthInstance } from "./authInstance.js";
import { listConnections, revokeConnection } from "./connections.js";

const SESSION_ONLY =
  "Connected apps can only be managed from a signed-in session, not with a token.";

export function connectionRoutes(
  auth: () => OAuthInstance,
  connection: Connection,
  logger: Logger,
): Router {
  const router = express.Router();
  router.use(noStore);

  router.get(
    "/",
    wrap(async (req, res) => {
      const user = sessionCallerOf(req, SESSION_ONLY);
      res.json({ data: await listConnections(auth(), connection, user.id) });
    }),
  );

  router.delete(
    "/:clientId",
    wrap(async (req, res) => {
      const user = sessionCallerOf(req, SESSION_ONLY);
      const clientId = String(req.params.clientId);
      if (!(await revokeConnection(auth(), connection, user.id, clientId))) {
        throw notFound("No app you connected has this client id.");
      }
      res.status(204).end();
    }),
  );

  router.use(errorMiddleware(logger));
  return router;
}
