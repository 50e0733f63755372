/**
 * The example app: users with JWT sign-up, owned todos and a shared food log over REST and MCP,
 * and an AI chat route that uses the same tools. `createExampleApp()` does not connect to a
 * database or listen: `server.ts` does that, and tests call `.build()` on the result.
 */
import { randomBytes } from "node:crypto";
import type { LanguageModel } from "ai";
import { TerrenoApp } from "../src/index.js";
import { chatPlugin } from "./chat/chatPlugin.js";
import { type Env, modelFromEnv } from "./chat/modelFromEnv.js";
import { User } from "./models/User.js";
import { foodRouter } from "./resources/foods.js";
import { todoRouter } from "./resources/todos.js";

export interface ExampleAppOptions {
  /** HS256 secret for the JWTs. Default: `JWT_SECRET`, else a random one for this process. */
  jwtSecret?: string;
  /** Access-token lifetime in seconds. Default: the framework's 15 minutes. */
  jwtExpiresInSeconds?: number;
  /** The chat model. Default: from `LLM_BASE_URL` / `LLM_MODEL` / `LLM_API_KEY` in `env`. */
  model?: LanguageModel;
  /** Where the defaults are read from. Default `process.env`. */
  env?: Env;
  /** Log one line per request. Default false. */
  logging?: boolean;
}

export function createExampleApp(options: ExampleAppOptions = {}): TerrenoApp {
  const env = options.env ?? process.env;
  const secret = options.jwtSecret ?? env.JWT_SECRET ?? randomBytes(32).toString("hex");
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret, expiresInSeconds: options.jwtExpiresInSeconds } },
    logging: options.logging ?? false,
    mcp: { name: "terreno-example", version: "0.1.0" },
  });
  app.register(todoRouter()); // /todos
  app.register(foodRouter()); // /foods
  app.register(chatPlugin({ app, model: options.model ?? modelFromEnv(env).model }));
  return app;
}
