// What the database answers while it is going away, on REST and MCP (issue 7, found by CI).
// A FerretDB stopped mid-request answers the in-flight command with InternalError (code 1)
// "context canceled" or "sql: database is closed"; a MongoDB primary that shuts down or steps
// down answers with the driver's retryable codes. Each must read as database_unavailable
// (REST 503, MCP isError), never a 500. The outage test meets these only by chance, so here the
// model's own middleware raises the driver's own error class with the server's answer.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import mongoose from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { IsAuthenticated } from "../../src/core/permissions.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signedUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  connectClient,
  type McpTestClient,
  toolError,
  useListening,
} from "../helpers/mcpClients.js";
import { User } from "../helpers/models.js";
import { JWT_SECRET } from "../helpers/restApp.js";

/** The server's answer that the next write meets, as the driver raises it; none when unset. */
let nextAnswer: Record<string, unknown> | undefined;

const noteSchema = new mongoose.Schema({ text: { type: String, required: true } });
noteSchema.pre("save", () => {
  const answer = nextAnswer;
  if (answer) throw new mongoose.mongo.MongoServerError(answer);
});
const Note = mongoose.models.FaultNote ?? mongoose.model("FaultNote", noteSchema);

const SHUTDOWN_ANSWERS: Array<[string, Record<string, unknown>]> = [
  [
    "FerretDB stopping: context canceled",
    {
      ok: 0,
      code: 1,
      codeName: "InternalError",
      errmsg: "[msg_insert.go:114 handler.(*Handler).MsgInsert] context canceled",
    },
  ],
  [
    "FerretDB stopping: its SQLite pool closed",
    { ok: 0, code: 1, codeName: "InternalError", errmsg: "sql: database is closed" },
  ],
  [
    "MongoDB InterruptedAtShutdown",
    { ok: 0, code: 11600, codeName: "InterruptedAtShutdown", errmsg: "interrupted at shutdown" },
  ],
  [
    "MongoDB ShutdownInProgress",
    { ok: 0, code: 91, codeName: "ShutdownInProgress", errmsg: "The server is in quiesce mode" },
  ],
  [
    "MongoDB NotWritablePrimary (failover)",
    { ok: 0, code: 10107, codeName: "NotWritablePrimary", errmsg: "not primary" },
  ],
  [
    "MongoDB PrimarySteppedDown",
    { ok: 0, code: 189, codeName: "PrimarySteppedDown", errmsg: "primary stepped down" },
  ],
  [
    "a retryable write error, by its label",
    {
      ok: 0,
      code: 262,
      codeName: "ExceededTimeLimit",
      errmsg: "operation exceeded time limit",
      errorLabels: ["RetryableWriteError"],
    },
  ],
];

describe("driver faults while the database goes away", () => {
  useTestDatabase("driver_faults");
  const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
    .register(
      "/faultnotes",
      modelRouter(Note, {
        permissions: { create: [IsAuthenticated], list: [IsAuthenticated] },
        mcp: { methods: ["create"], toolPrefix: "faultnotes" },
      }),
    )
    .build();
  let client: McpTestClient;
  // Registered before the server's: the client closes first.
  after(async () => {
    nextAnswer = undefined;
    await client.close();
  });
  const server = useListening(app);
  const [alice] = signedUp(app, "alice");
  before(async () => {
    client = await connectClient("v2-auto", server.url, alice.token);
  });

  for (const [name, answer] of SHUTDOWN_ANSWERS) {
    test(`${name}: REST 503 database_unavailable, MCP isError database_unavailable`, async () => {
      nextAnswer = answer;
      try {
        const rest = await request(app)
          .post("/faultnotes")
          .set(bearer(alice))
          .send({ text: "during the fault" });
        assert.equal(rest.status, 503, JSON.stringify(rest.body));
        assert.equal(rest.body.code, "database_unavailable");
        const tool = await client.callTool("faultnotes_create", { text: "during the fault" });
        assert.equal(tool.isError, true, JSON.stringify(tool));
        assert.equal(toolError(tool).code, "database_unavailable");
      } finally {
        nextAnswer = undefined;
      }
    });
  }

  test("a server error that is not about availability stays a plain 500", async () => {
    nextAnswer = { ok: 0, code: 2, codeName: "BadValue", errmsg: "bad value" };
    try {
      const rest = await request(app)
        .post("/faultnotes")
        .set(bearer(alice))
        .send({ text: "a bad value" });
      assert.equal(rest.status, 500, JSON.stringify(rest.body));
      assert.equal(rest.body.code, "internal");
    } finally {
      nextAnswer = undefined;
    }
  });

  test("with the fault gone, the same write is stored", async () => {
    const rest = await request(app).post("/faultnotes").set(bearer(alice)).send({ text: "after" });
    assert.equal(rest.status, 201, JSON.stringify(rest.body));
    assert.equal(await Note.countDocuments({ text: "after" }), 1);
  });
});
