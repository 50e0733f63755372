/**
 * The middlewares in front of the chat routes: a signed-in caller, and (for `POST /chat` only)
 * a token whose scope allows writes.
 */
import type { NextFunction, Request, Response } from "express";
import { TerrenoError } from "../core/errors.js";
import { assertScopeAllows } from "../core/scopes.js";
import type { User } from "../core/types.js";

/** A request after the app's auth: `user` is set when a caller signed in. */
export type ChatRequest = Request & { user?: User };

export function requireUser(req: ChatRequest, _res: Response, next: NextFunction): void {
  if (!req.user) {
    next(new TerrenoError("unauthenticated", "Sign in first: send Authorization: Bearer <token>."));
    return;
  }
  next();
}

// A chat stores the conversation, so a read-only token may not start one (REST's rule: a read
// scope may only GET); its tools would be read-only anyway.
export function requireWriteScope(req: ChatRequest, _res: Response, next: NextFunction): void {
  try {
    assertScopeAllows({ user: req.user }, "create");
    next();
  } catch (error) {
    next(error);
  }
}
