// Real test databases for terreno-mcp (exported as `terreno-mcp/testing`): uses MONGODB_URI when
// set, otherwise builds FerretDB v1.24.2 once with Go (SQLite backend, cached per user in
// ~/.cache/terreno-mcp) and runs it on a local port.
export { CACHE_DIR_ENV, defaultCacheDir } from "./cacheDir.js";
export {
  BUILD_TIME_ESTIMATE,
  type EnsureFerretDBBinaryOptions,
  ensureFerretDBBinary,
  FERRETDB_VERSION,
} from "./ferretdbBinary.js";
export {
  type FerretDBServer,
  findFreePort,
  type RestartOptions,
  type StartFerretDBOptions,
  startFerretDB,
} from "./ferretdbServer.js";
export type { LogFn } from "./processUtils.js";
export {
  createTestDatabase,
  type TestDatabase,
  type TestDatabaseOptions,
  withDatabaseName,
} from "./testDatabase.js";
