/**
 * `npm run example`: the example app on PORT (default 4000) and HOST (default 127.0.0.1), over
 * MONGODB_URI or an embedded FerretDB, with the web page at `/` (built with Vite on the first
 * start). SIGTERM / Ctrl-C stop the HTTP server (in-flight requests
 * finish), then the database connection, then FerretDB.
 */
import { ensureFrontendBuilt } from "../example-frontend/build.js";
import type { RunningServer } from "../src/index.js";
import { adminEmailFrom } from "./admin.js";
import { createExampleApp } from "./app.js";
import { banner } from "./banner.js";
import { modelFromEnv } from "./chat/modelFromEnv.js";
import { exampleCounterStore } from "./counterStore.js";
import { startExampleDatabase } from "./database.js";
import { assertPortFree, portFrom, portInUseMessage, secondsFrom } from "./env.js";
import { loadJwtSecret } from "./jwtSecret.js";
import { publicUrlFrom } from "./oauth.js";

const log = (message: string): void => {
  process.stderr.write(`${message}\n`);
};

async function main(): Promise<void> {
  const startedAt = performance.now();
  const env = process.env;
  const port = portFrom(env.PORT, 4000, "PORT");
  const host = env.HOST?.trim() || "127.0.0.1";
  portFrom(env.FERRETDB_PORT, 0, "FERRETDB_PORT"); // fail before building anything
  const jwtExpiresInSeconds = secondsFrom(env.JWT_EXPIRES_IN, "JWT_EXPIRES_IN");
  const adminEmail = adminEmailFrom(env.ADMIN_EMAIL);
  await assertPortFree(host, port);

  const jwt = await loadJwtSecret(env);
  const llm = modelFromEnv(env);
  const warnings = jwt.warning ? [jwt.warning] : [];
  // Before the database starts, so a failed build has nothing to clean up. Without the page
  // the API still serves: the page is the demo, not the product.
  let frontendDir: string | undefined;
  try {
    frontendDir = await ensureFrontendBuilt(log);
  } catch (error) {
    warnings.push(
      `the web page could not be built (${error instanceof Error ? error.message : String(error)}); ` +
        "serving the API only. Rebuild with: node --import tsx example-frontend/build.ts",
    );
  }
  const database = await startExampleDatabase(env, log);

  const counters = exampleCounterStore(env);
  let running: RunningServer;
  try {
    running = await createExampleApp({
      rateLimitStore: counters.store,
      jwtSecret: jwt.secret,
      jwtExpiresInSeconds,
      model: llm.model,
      logging: env.LOG_REQUESTS !== "0",
      ...(frontendDir ? { frontendDir } : {}),
      publicUrl: publicUrlFrom(env.PUBLIC_URL, host, port), // the OAuth issuer for MCP clients
    }).start({ port, host, handleSignals: false });
  } catch (error) {
    await counters.close();
    await database.stop();
    throw error;
  }
  // Express 5 hands a listen error to the callback, so start() can resolve without listening.
  if (!running.server.listening) {
    await database.stop();
    throw new Error(portInUseMessage(host, port));
  }

  process.stdout.write(
    banner({
      url: running.url,
      database: database.description,
      llm: llm.summary,
      page: frontendDir !== undefined,
      startedInMs: Math.round(performance.now() - startedAt),
      uptimeMs: Math.round(process.uptime() * 1000),
      tokenSeconds: jwtExpiresInSeconds ?? 15 * 60, // the framework's default
      adminEmail,
      warnings,
    }),
  );

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`\n${signal}: stopping the HTTP server, then the database...`);
    try {
      await running.close(); // drains requests, then disconnects Mongoose
      await counters.close(); // the rate limits' own connection (counterStore.ts), if any
      await database.stop();
      log("Stopped.");
      process.exit(0);
    } catch (error) {
      log(`Shutdown failed: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  log(`example: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
