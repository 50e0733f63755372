/** What the built-in auth routers (JWT routes, personal tokens) share: callers, errors, no caching. */
import type { NextFunction, Request, Response } from "express";
import { forbidden, unauthenticated } from "../core/errors.js";
import { isSessionCaller } from "../core/scopes.js";
import type { User } from "../core/types.js";

export function callerOf(req: Request): User {
  const user = req.user;
  if (!user) throw unauthenticated();
  return user;
}

/** A signed-in session only: a scoped token (personal, OAuth) gets 403 `detail`. */
export function sessionCallerOf(req: Request, detail: string): User {
  const user = callerOf(req);
  if (!isSessionCaller(user)) throw forbidden(detail);
  return user;
}

type Handler = (req: Request, res: Response) => Promise<void>;

/** A route's failure goes on to the router's error middleware (errorMiddleware(logger), last). */
export const wrap =
  (handle: Handler) =>
  async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      await handle(req, res);
    } catch (error) {
      next(error);
    }
  };

/** Tokens must never sit in a browser or proxy cache. */
export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.set("Cache-Control", "no-store");
  res.set("Pragma", "no-cache");
  next();
}
