/**
 * An app whose models live on their own Mongoose connection (`createConnection()`) or on a second
 * Mongoose instance (`new Mongoose()`), as an app with its own copy of Mongoose has them: the
 * framework must use that connection for everything (auth tokens, rate-limit counters, audit,
 * errors, shutdown) and never touch, or wait for, its default `mongoose` connection.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import mongoose, { type Connection, Mongoose, Schema } from "mongoose";
import request from "supertest";
import { connectDatabase } from "../../src/app/database.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { authUserPlugin } from "../../src/auth/userPlugin.js";
import type { AnyModel } from "../../src/core/types.js";
import { auditToMongo } from "../../src/ops/auditMongo.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { createTestDatabase, type TestDatabase } from "../../src/testing/ferretdb.js";
import { OWNED } from "../helpers/permissions.js";

const SECRET = "test-secret-that-is-long-enough-for-hs256";

function defineModels(connection: Connection | Mongoose): { User: AnyModel; Note: AnyModel } {
  const userSchema = new Schema({ name: { type: String, maxlength: 100 } }, { timestamps: true });
  userSchema.plugin(authUserPlugin);
  const noteSchema = new Schema(
    {
      title: { type: String, required: true, maxlength: 50 },
      ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true },
    },
    { timestamps: true },
  );
  return {
    User: connection.model("User", userSchema),
    Note: connection.model("Note", noteSchema),
  };
}

function buildApp(User: AnyModel, Note: AnyModel) {
  const audit = auditToMongo({ path: false });
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: SECRET } },
    rateLimit: { store: "mongo" },
    openapi: false,
  });
  app.register(
    "/notes",
    modelRouter(Note, {
      ...OWNED,
    }),
  );
  app.register(audit);
  return { app, audit };
}

interface Case {
  name: string;
  setup: () => { models: Connection | Mongoose; connection: Connection };
  connect: (uri: string, models: Connection | Mongoose, connection: Connection) => Promise<unknown>;
}

const cases: Case[] = [
  {
    name: "mongoose.createConnection(), opened by connectDatabase({connection})",
    setup: () => {
      const connection = mongoose.createConnection();
      return { models: connection, connection };
    },
    connect: (uri, _models, connection) => connectDatabase(uri, { connection }),
  },
  {
    name: "a second Mongoose instance, connected by connectDatabase({mongoose})",
    setup: () => {
      const instance = new Mongoose();
      return { models: instance, connection: instance.connection };
    },
    connect: (uri, models) => connectDatabase(uri, { mongoose: models as Mongoose }),
  },
  {
    name: "mongoose.createConnection(), opened by the app itself",
    setup: () => {
      const connection = mongoose.createConnection();
      return { models: connection, connection };
    },
    connect: (uri, _models, connection) => connection.openUri(uri),
  },
];

for (const { name, setup, connect } of cases) {
  describe(`models on ${name}`, () => {
    let database: TestDatabase;
    const { models, connection } = setup();
    const { User, Note } = defineModels(models);
    const { app, audit } = buildApp(User, Note);

    before(async () => {
      database = await createTestDatabase("appconn");
      await connect(database.uri, models, connection);
    });
    after(async () => {
      await connection.close().catch(() => undefined);
      await database.close();
    });

    test("that connection is open, and the default one never is", () => {
      assert.equal(connection.readyState, 1);
      assert.equal(mongoose.connection.readyState, 0);
    });

    test("sign-up, REST writes, errors and audit all run on the app's connection", async () => {
      const express = app.build();
      const signup = await request(express)
        .post("/auth/signup")
        .send({ email: `own-${Date.now()}@example.com`, password: "correct horse battery" });
      assert.equal(signup.status, 201, JSON.stringify(signup.body));
      const auth = { Authorization: `Bearer ${signup.body.data.token}` };

      const created = await request(express).post("/notes").set(auth).send({ title: "mine" });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const listed = await request(express).get("/notes").set(auth);
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body.data.map((note: { title: string }) => note.title),
        ["mine"],
      );

      // Mongoose's own errors (a ValidationError, a CastError) still become 400 and 404.
      const tooLong = await request(express)
        .post("/notes")
        .set(auth)
        .send({ title: "x".repeat(51) });
      assert.equal(tooLong.status, 400, JSON.stringify(tooLong.body));
      assert.equal(tooLong.body.code, "validation_failed");
      const badId = await request(express).get("/notes/not-an-id").set(auth);
      assert.equal(badId.status, 404, JSON.stringify(badId.body));

      assert.equal(audit.model.db, connection);
      assert.ok((await audit.model.countDocuments({ action: "create" })) >= 1);
      assert.equal(mongoose.connection.readyState, 0);
    });

    test("shutting the server down closes the app's connection", async () => {
      const running = await app.start({ port: 0, handleSignals: false });
      await running.close();
      assert.equal(connection.readyState, 0);
    });
  });
}
