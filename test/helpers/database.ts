/** Connects this test file's Mongoose to its own database and drops it afterwards. */
import { after, before } from "node:test";
import mongoose, { type Connection } from "mongoose";
import { connectDatabase } from "../../src/app/database.js";
import { createTestDatabase, type TestDatabase } from "../../src/testing/ferretdb.js";

export function useTestDatabase(name: string): { current: () => TestDatabase } {
  let database: TestDatabase | undefined;
  before(async () => {
    database = await createTestDatabase(name);
    await connectDatabase(database.uri);
    await Promise.all(Object.values(mongoose.models).map((model) => model.init()));
  });
  after(async () => {
    await mongoose.disconnect();
    await database?.close();
  });
  return {
    current: () => {
      if (!database) throw new Error("test database not started yet");
      return database;
    },
  };
}

/** Another connection to the test database, with at most `maxPoolSize` sockets. */
export function openConnection(
  database: { current: () => TestDatabase },
  maxPoolSize?: number,
): Promise<Connection> {
  const options = maxPoolSize === undefined ? {} : { maxPoolSize };
  return mongoose.createConnection(database.current().uri, options).asPromise();
}

/**
 * Another connection to the test database for the tests of the enclosing suite: opened before
 * them, closed after. Read it (call the result) inside a test or hook.
 */
export function useConnection(
  database: { current: () => TestDatabase },
  maxPoolSize: number,
): () => Connection {
  let connection: Connection | undefined;
  before(async () => {
    connection = await openConnection(database, maxPoolSize);
  });
  after(() => connection?.close());
  return () => {
    if (!connection) throw new Error("the connection is not open yet");
    return connection;
  };
}
