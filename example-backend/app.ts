/**
 * The example app: users with JWT sign-up, owned todos and a shared food log over REST and MCP,
 * workspaces (teams, with roles and invitations at /workspaces) holding their projects,
 * a user directory for admins (`ADMIN_EMAIL` names the admin), an AI chat that uses the same
 * tools (writes wait for the user's approval), and, given `frontendDir`, the web page at `/`.
 * `createExampleApp()` does not connect to a database or listen: `server.ts` does that, and
 * tests call `.build()` on the result.
 */
import { randomBytes } from "node:crypto";
import type { LanguageModel } from "ai";
import type { ChatRateLimitOptions } from "../src/chat/index.js";
import { type Logger, type RateLimitStore, TerrenoApp } from "../src/index.js";
import { adminEmailFrom, adminHooks } from "./admin.js";
import { exampleChat } from "./chat/exampleChat.js";
import { type Env, modelFromEnv } from "./chat/modelFromEnv.js";
import { frontendPlugin } from "./frontend.js";
import { previousSecretsFrom } from "./jwtSecret.js";
import { User } from "./models/User.js";
import { exampleOAuth } from "./oauth.js";
import { registerExamplePrompts } from "./prompts.js";
import { foodRouter } from "./resources/foods.js";
import { projectRouter } from "./resources/projects.js";
import { todoRouter } from "./resources/todos.js";
import { userRouter } from "./resources/users.js";

export interface ExampleAppOptions {
  /** HS256 secret for the JWTs. Default: `JWT_SECRET`, else a random one for this process. */
  jwtSecret?: string;
  /** Access-token lifetime in seconds. Default: the framework's 15 minutes. */
  jwtExpiresInSeconds?: number;
  /**
   * The chat model. Default: from `LLM_BASE_URL` / `LLM_MODEL` / `LLM_API_KEY` in `env`, else
   * the offline demo model (rule-based, not an LLM).
   */
  model?: LanguageModel;
  /** Where the defaults are read from. Default `process.env`. */
  env?: Env;
  /** Log one line per request: `true` to stdout, or a function that receives each line. Default false. */
  logging?: boolean | ((line: string) => void);
  /** Receives every server fault (pino's signature). Default: the console. */
  logger?: Logger;
  /**
   * Where the rate limits count. Default `"memory"`; `server.ts` passes `exampleCounterStore`'s
   * (counterStore.ts: with MONGODB_URI, the database, over a one-socket connection of its own).
   */
  rateLimitStore?: RateLimitStore;
  /**
   * The chat's per-user limit (`chatPlugin`'s `rateLimit`). Default: the plugin's, 10 chat
   * requests (a message, an approval, an app view's call) per 10 s.
   */
  chatRateLimit?: ChatRateLimitOptions;
  /**
   * The user who signs up or logs in with this email becomes an admin. Default: `ADMIN_EMAIL`
   * in `env`; none when unset.
   */
  adminEmail?: string;
  /**
   * The built web page (`example-frontend/dist`), served at `/` with a fallback to its
   * index.html for page routes. Default: none, the API only.
   */
  frontendDir?: string;
  /**
   * The server's URL as clients reach it (`http://127.0.0.1:4000`; `server.ts` passes it): turns
   * on the built-in OAuth sign-in for MCP clients (example-backend/oauth.ts), with this URL as
   * its issuer. Default: none, personal access tokens and JWTs only.
   */
  publicUrl?: string;
}

export function createExampleApp(options: ExampleAppOptions = {}): TerrenoApp {
  const env = options.env ?? process.env;
  const secret = options.jwtSecret ?? env.JWT_SECRET ?? randomBytes(32).toString("hex");
  // After a rotation: still accepted for verifying and decrypting, never for signing.
  const previousSecrets = previousSecretsFrom(env.JWT_PREVIOUS_SECRETS, secret);
  const adminEmail = adminEmailFrom(options.adminEmail ?? env.ADMIN_EMAIL);
  const app = new TerrenoApp({
    userModel: User,
    auth: {
      jwt: {
        secret,
        previousSecrets,
        expiresInSeconds: options.jwtExpiresInSeconds,
        ...adminHooks(adminEmail), // ADMIN_EMAIL's user becomes an admin at signup or login
      },
    },
    logging: options.logging ?? false,
    ...(options.logger ? { logger: options.logger } : {}),
    // Discovery tools: `describe_models` (models, fields and relationships this caller can
    // reach) and `whoami` (who the caller is: id, name, admin, how it signed in, scopes).
    // MCP Apps: list tools link a table view and read tools a record card (`ui://terreno/...`),
    // which MCP Apps hosts and the example's own chat page render.
    // Change tools: `changes_list` (the caller's own changes) and `changes_undo` (confirmed).
    mcp: { name: "terreno-example", version: "0.1.0", discovery: true, apps: true, changes: true },
    // GET /openapi.json (OpenAPI 3.1 of every route below) and GET /docs (Swagger UI, served
    // from this server): on by default, spelled out here to name the document.
    openapi: { title: "terreno-example", version: "0.1.0" },
    // The framework's defaults (docs/rate-limits-and-audit.md, "Rate limits"): 30 auth requests per minute per IP, an
    // account locked after 5 failed logins (longer while attempts go on), 600 writes and 600
    // tool calls per minute per caller. server.ts counts in the database when MONGODB_URI names a
    // shared one, so every instance counts together, over a one-socket connection (exact on
    // FerretDB too); the embedded single-process FerretDB counts in memory (counterStore.ts).
    rateLimit: { store: options.rateLimitStore ?? "memory" },
    // Workspaces (docs/workspaces.md): teams with owners, members and viewers, managed at
    // /workspaces and joined by invitation. Nothing is created at sign-up: a new user has none
    // until they create one or accept an invitation. Each call acts in one workspace: the
    // X-Workspace-Id header, a token bound to it, or the caller's only one.
    workspaces: true,
    // Change records (docs/safe-writes.md): every write is recorded (hidden values kept for
    // undo only), listed at GET /changes and undone at POST /changes/:id/undo.
    changes: true,
  });
  app.register(todoRouter()); // /todos
  app.register(foodRouter()); // /foods
  app.register(userRouter()); // /users, admins only
  app.register(projectRouter()); // /projects, the current workspace's
  registerExamplePrompts(app); // review_todo and plan_my_day, for MCP clients and the chat
  // Sign-in for MCP clients through the browser (/oauth/*), when the server's URL is known.
  const { publicUrl } = options;
  if (publicUrl) app.register(exampleOAuth({ jwtSecret: secret, previousSecrets, publicUrl }));
  const { model, label } = options.model
    ? { model: options.model, label: undefined }
    : modelFromEnv(env);
  const { chatRateLimit: rateLimit } = options;
  app.register(exampleChat({ model, label, rateLimit })); // /chat, /chat/info, /chat/conversations, ...
  // Last: the page's fallback must come after every plugin route (routers are never shadowed).
  if (options.frontendDir) app.register(frontendPlugin({ dir: options.frontendDir }));
  return app;
}
