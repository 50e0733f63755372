/**
 * `req.user`: the caller TerrenoApp's auth middleware resolves once per request
 * (app/TerrenoApp.ts), typed for the modules that read it (REST's request context, the rate
 * limits, the auth routes). Internal: a `.d.ts` is not emitted, so the published types do not
 * add a global `user` to the apps that use terreno-mcp (where it could clash with another
 * library's, e.g. Passport's).
 */
import type { User } from "../core/types.js";

declare global {
  namespace Express {
    interface Request {
      user?: User;
    }
  }
}
