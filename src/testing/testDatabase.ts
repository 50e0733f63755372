import { randomBytes } from "node:crypto";
import mongoose from "mongoose";
import { type FerretDBServer, startFerretDB } from "./ferretdbServer.js";
import type { LogFn } from "./processUtils.js";

export interface TestDatabaseOptions {
  /** Part of the database name (`t_<name>_<random>`), to tell test files apart. */
  name?: string;
  /** The private FerretDB's port on 127.0.0.1. Default: a free port. Unused with MONGODB_URI. */
  port?: number;
  /** Where the FerretDB binary is cached. Default: `TERRENO_MCP_CACHE_DIR` or `~/.cache/terreno-mcp`. */
  cacheDir?: string;
  /** Progress messages (a FerretDB build). Default: stderr. */
  log?: LogFn;
}

export interface TestDatabase {
  /** Connection string that includes `dbName` in its path. */
  uri: string;
  dbName: string;
  /** Set when a private FerretDB was started because MONGODB_URI was not set. */
  server?: FerretDBServer;
  /** Drops the database (shared server) or stops the private server. Safe to call twice. */
  close(): Promise<void>;
}

export function withDatabaseName(uri: string, dbName: string): string {
  const scheme = /^mongodb(\+srv)?:\/\//i.exec(uri)?.[0];
  if (!scheme) throw new Error(`Not a MongoDB connection string: ${uri}`);
  const rest = uri.slice(scheme.length);
  const authorityEnd = rest.search(/[/?]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  let remainder = authorityEnd === -1 ? "" : rest.slice(authorityEnd);
  if (remainder.startsWith("/")) remainder = remainder.slice(1);
  const queryStart = remainder.indexOf("?");
  const oldDb = decodeURIComponent(queryStart === -1 ? remainder : remainder.slice(0, queryStart));
  const query = new URLSearchParams(queryStart === -1 ? "" : remainder.slice(queryStart + 1));
  if (authority.includes("@") && !query.has("authSource")) {
    query.set("authSource", oldDb || "admin");
  }
  const search = query.toString();
  return `${scheme}${authority}/${encodeURIComponent(dbName)}${search ? `?${search}` : ""}`;
}

function uniqueDbName(name: string | undefined): string {
  const base = (name ?? "db").replace(/[^A-Za-z0-9_]/g, "_").slice(0, 24) || "db";
  return `t_${base}_${randomBytes(4).toString("hex")}`;
}

/**
 * Gives a test file its own database. With MONGODB_URI set, a uniquely named database on that
 * server (dropped by `close()`); otherwise a private FerretDB (stopped by `close()`).
 */
export async function createTestDatabase(
  nameOrOptions?: string | TestDatabaseOptions,
): Promise<TestDatabase> {
  const options =
    typeof nameOrOptions === "string" ? { name: nameOrOptions } : (nameOrOptions ?? {});
  const dbName = uniqueDbName(options.name);
  const sharedUri = process.env.MONGODB_URI;
  let closed = false;

  if (sharedUri) {
    const uri = withDatabaseName(sharedUri, dbName);
    return {
      uri,
      dbName,
      async close() {
        if (closed) return;
        closed = true;
        const client = new mongoose.mongo.MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
        try {
          await client.db(dbName).dropDatabase();
        } finally {
          await client.close();
        }
      },
    };
  }

  const server = await startFerretDB({
    port: options.port,
    cacheDir: options.cacheDir,
    log: options.log,
  });
  return {
    uri: withDatabaseName(server.uri, dbName),
    dbName,
    server,
    async close() {
      if (closed) return;
      closed = true;
      await server.stop();
    },
  };
}
