// Checks the real test database harness: createTestDatabase, FerretDB stop/restart, clear errors.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import net from "node:net";
import { after, describe, test } from "node:test";
import mongoose from "mongoose";
import {
  createTestDatabase,
  ensureFerretDBBinary,
  startFerretDB,
  withDatabaseName,
} from "../../src/testing/ferretdb.js";

const itemSchema = new mongoose.Schema({ name: { type: String, required: true }, n: Number });

async function connect(uri: string): Promise<mongoose.Connection> {
  return mongoose
    .createConnection(uri, { serverSelectionTimeoutMS: 5000, bufferCommands: false })
    .asPromise();
}

describe("createTestDatabase", () => {
  test("gives a URI with its database name that mongoose can write to and read from", async () => {
    const db = await createTestDatabase("harness");
    const conn = await connect(db.uri);
    try {
      assert.match(db.dbName, /^t_harness_[0-9a-f]{8}$/);
      assert.equal(conn.db?.databaseName, db.dbName);
      const Item = conn.model("Item", itemSchema);
      await Item.create({ name: "alpha", n: 1 });
      const found = await Item.findOne({ name: "alpha" }).lean();
      assert.equal(found?.n, 1);
      assert.equal(await Item.countDocuments(), 1);
    } finally {
      await conn.close();
      await db.close();
      await db.close(); // idempotent
    }
  });

  test("two calls get two separate databases", async () => {
    const a = await createTestDatabase("same");
    const b = await createTestDatabase("same");
    const connA = await connect(a.uri);
    const connB = await connect(b.uri);
    try {
      assert.notEqual(a.dbName, b.dbName);
      assert.notEqual(a.uri, b.uri);
      await connA.model("Item", itemSchema).create({ name: "only-in-a" });
      assert.equal(await connB.model("Item", itemSchema).countDocuments(), 0);
      assert.equal(await connA.model("Item", itemSchema).countDocuments(), 1);
    } finally {
      await connA.close();
      await connB.close();
      await a.close();
      await b.close();
    }
  });
});

describe("startFerretDB", () => {
  test("restart keeps the data, port and URI, and a connected client recovers", async () => {
    const server = await startFerretDB();
    const conn = await mongoose
      .createConnection(withDatabaseName(server.uri, "restart_test"), {
        serverSelectionTimeoutMS: 3000,
        heartbeatFrequencyMS: 500,
        bufferCommands: false,
      })
      .asPromise();
    try {
      const Item = conn.model("Item", itemSchema);
      await Item.create({ name: "survivor", n: 42 });
      const { port, uri, dataDir } = server;

      let refusedWhileDown = false;
      await server.restart({
        whileDown: async () => {
          refusedWhileDown = await new Promise<boolean>((resolve) => {
            const socket = net.connect({ host: "127.0.0.1", port });
            socket.once("connect", () => {
              socket.destroy();
              resolve(false);
            });
            socket.once("error", () => resolve(true));
          });
        },
      });
      assert.equal(refusedWhileDown, true, "the port should refuse connections while down");
      assert.deepEqual([server.port, server.uri, server.dataDir], [port, uri, dataDir]);

      const found = await Item.findOne({ name: "survivor" }).lean();
      assert.equal(found?.n, 42);
    } finally {
      await conn.close();
      await server.stop();
    }
  });

  test("stop removes the temp data dir and frees the port", async () => {
    const server = await startFerretDB();
    await server.stop();
    await server.stop(); // idempotent
    assert.equal(existsSync(server.dataDir), false);
    await assert.rejects(server.restart(), /was stopped/);
  });
});

describe("ensureFerretDBBinary", () => {
  const saved = process.env.FERRETDB_BIN;
  after(() => {
    if (saved === undefined) delete process.env.FERRETDB_BIN;
    else process.env.FERRETDB_BIN = saved;
  });

  test("a FERRETDB_BIN that points nowhere gives one clear error", async () => {
    process.env.FERRETDB_BIN = "/nonexistent/ferretdb";
    try {
      await assert.rejects(ensureFerretDBBinary(), (error: Error) => {
        assert.match(error.message, /FERRETDB_BIN is set to "\/nonexistent\/ferretdb"/);
        return true;
      });
      await assert.rejects(startFerretDB(), /FERRETDB_BIN/);
    } finally {
      if (saved === undefined) delete process.env.FERRETDB_BIN;
      else process.env.FERRETDB_BIN = saved;
    }
  });
});

describe("withDatabaseName", () => {
  test("inserts the database name into any MongoDB URI", () => {
    assert.equal(withDatabaseName("mongodb://127.0.0.1:1/", "x"), "mongodb://127.0.0.1:1/x");
    assert.equal(withDatabaseName("mongodb://127.0.0.1:1", "x"), "mongodb://127.0.0.1:1/x");
    assert.equal(withDatabaseName("mongodb://h:1/old?w=1", "x"), "mongodb://h:1/x?w=1");
    assert.equal(
      withDatabaseName("mongodb://a:1,b:2?replicaSet=rs", "x"),
      "mongodb://a:1,b:2/x?replicaSet=rs",
    );
    assert.equal(
      withDatabaseName("mongodb+srv://u:p%40@c.example.net/app?retryWrites=true", "x"),
      "mongodb+srv://u:p%40@c.example.net/x?retryWrites=true&authSource=app",
    );
    assert.equal(
      withDatabaseName("mongodb://u:p@h/?authSource=other", "x"),
      "mongodb://u:p@h/x?authSource=other",
    );
    assert.equal(withDatabaseName("mongodb://u:p@h", "x"), "mongodb://u:p@h/x?authSource=admin");
    assert.throws(() => withDatabaseName("http://h/", "x"), /Not a MongoDB connection string/);
  });
});
