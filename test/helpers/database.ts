/** Connects this test file's Mongoose to its own database and drops it afterwards. */
import { after, before } from "node:test";
import mongoose from "mongoose";
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
