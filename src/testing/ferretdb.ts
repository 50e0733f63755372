// Real test databases for terreno-mcp (exported as `terreno-mcp/testing`): uses MONGODB_URI when
// set, otherwise builds FerretDB v1.24.2 once with Go (SQLite backend, cached in .cache/bin) and
// runs it on a free local port.
export {
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
export { createTestDatabase, type TestDatabase, withDatabaseName } from "./testDatabase.js";
