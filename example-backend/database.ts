/**
 * The example's database: `MONGODB_URI` when set, otherwise an embedded FerretDB (MongoDB wire
 * protocol over SQLite) whose files live in `example-backend/.data/ferretdb`, so data survives
 * restarts. The FerretDB binary is built with Go on first use (minutes, with progress lines) and
 * cached per user (~/.cache/terreno-mcp), like the testing helper's.
 */
import path from "node:path";
import { connectDatabase } from "../src/index.js";
import { ensureFerretDBBinary, startFerretDB, withDatabaseName } from "../src/testing/ferretdb.js";
import type { Env } from "./chat/modelFromEnv.js";
import { DATA_DIR, displayPath } from "./paths.js";

const EXAMPLE_DB_NAME = "terreno_example";

export interface ExampleDatabase {
  /** Where the data lives, for the banner. */
  description: string;
  /** Stops the embedded FerretDB (a no-op for MONGODB_URI). Call after Mongoose disconnects. */
  stop(): Promise<void>;
}

type Signal = "SIGINT" | "SIGTERM" | "SIGHUP";
const SIGNALS: readonly Signal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export async function startExampleDatabase(
  env: Env,
  log: (message: string) => void,
): Promise<ExampleDatabase> {
  if (env.MONGODB_URI) {
    await connectDatabase(env.MONGODB_URI);
    return { description: "MONGODB_URI", stop: async () => {} };
  }

  const dataDir = path.join(DATA_DIR, "ferretdb");
  const binary = await ensureFerretDBBinary({ log });
  // The test harness kills FerretDB with SIGKILL as soon as a signal arrives; the example shuts
  // down in order instead (HTTP server, then Mongoose, then FerretDB), so drop those listeners.
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const port = env.FERRETDB_PORT ? Number(env.FERRETDB_PORT) : undefined;
  const server = await startFerretDB({ binary, dataDir, port, log });
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
    }
  }

  const uri = withDatabaseName(server.uri, EXAMPLE_DB_NAME);
  try {
    await connectDatabase(uri);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    description: `embedded FerretDB at ${uri}, files in ${displayPath(dataDir)}`,
    stop: () => server.stop(),
  };
}
