/**
 * Child process: the o200k token cost of tool catalogs, with no database and no server. For each
 * tool, what a model reads before its first call: `JSON.stringify({name, description,
 * inputSchema})` encoded with gpt-tokenizer's o200k_base (see ../lib/tokens.ts). Catalogs:
 *   example   createExampleApp().toolDefinitions (example-backend/app.ts: todos and foods)
 *   bench     the bench's todo model (bench/models.ts), the one the load scenarios call
 *   widget    one generated model of the tools/list scenario (bench/models.ts syntheticRouters)
 * Imports are relative, so a copy of bench/ inside a baseline tree (BENCH_BASELINE) measures that
 * tree's src/ and example-backend/.
 */
import mongoose from "mongoose";
import { send, sendLast } from "../lib/ipc.js";
import { type CatalogTokens, countCatalog } from "../lib/tokens.js";

export type TokensResult = Record<string, CatalogTokens>;

send({ type: "ready", ports: {} });
try {
  // No chat model configured: the chat route is still registered, and it has no tools of its own.
  const env = { ...process.env, LLM_BASE_URL: "", LLM_MODEL: "" };
  const { createExampleApp } = await import("../../example-backend/app.js");
  const example = createExampleApp({ jwtSecret: "tokens-only", env }).toolDefinitions;
  // The example's User and Todo models and the bench's share names on the default connection.
  for (const name of mongoose.modelNames()) mongoose.deleteModel(name);
  const { TerrenoApp } = await import("../../src/index.js");
  const { syntheticRouters, todoRouter, User } = await import("../models.js");

  const benchApp = new TerrenoApp({ userModel: User, auth: { jwt: { secret: "tokens-only" } } });
  benchApp.register(todoRouter());
  const widgetApp = new TerrenoApp({ userModel: User, auth: { jwt: { secret: "tokens-only" } } });
  for (const router of syntheticRouters(1)) widgetApp.register(router);

  const result: TokensResult = {
    example: countCatalog(example),
    bench: countCatalog(benchApp.toolDefinitions),
    widget: countCatalog(widgetApp.toolDefinitions),
  };
  await sendLast({ type: "result", result });
} catch (error) {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  await sendLast({ type: "failed", message });
}
