/**
 * Custom tools (`app.tool(...)`) over REST: `POST /tools/<name>` answers the MCP tool's
 * structuredContent (`{data}`), validation failures are 400s with field paths, a tool the
 * caller may not see is answered exactly as an unknown name (404 `unknown_tool`, 401 when
 * anonymous), and write tools spend the caller's write points while read-only ones do not.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import request from "supertest";
import { z } from "zod";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { callContext } from "../../src/core/services.js";
import type { AuditEvent } from "../../src/ops/audit.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { executeTool } from "../../src/tools/executeTool.js";
import { STANDALONE_SERVICES } from "../../src/tools/services.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("custom_tools_rest");

const audit: AuditEvent[] = [];

function buildApp(writes = 1000) {
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    onAudit: (event) => {
      audit.push(event);
    },
    rateLimit: { writes: { points: writes, duration: 60 }, auth: false },
  });
  app.register(modelRouter(Todo, todoOptions()));
  app.tool("word_length", {
    description: "Counts the letters of a word.",
    input: z.object({ word: z.string().max(10), meta: z.object({ rank: z.number() }).optional() }),
    output: z.object({ length: z.number() }),
    annotations: { readOnlyHint: true },
    handler: (_ctx, input) => ({ length: input.word.length }),
  });
  app.tool("bump", {
    description: "A write.",
    input: z.object({ by: z.number().int() }),
    handler: (ctx, input) => ({ by: input.by, caller: ctx.user?.id }),
  });
  app.tool("admin_reset", {
    description: "Admins only.",
    input: z.object({ really: z.boolean() }),
    permissions: (user) => Boolean(user?.admin),
    handler: () => ({ reset: true }),
  });
  app.tool("ping", {
    description: "Anyone.",
    allowAnonymous: true,
    annotations: { readOnlyHint: true },
    handler: () => "pong",
  });
  return app;
}

describe("custom tools over REST", () => {
  const app = buildApp();
  const express = app.build();
  let ada: TestUser;

  before(async () => {
    ada = await signUp(express, "ada");
  });

  test("POST /tools/<name> answers 200 with the MCP tool's structuredContent", async () => {
    const res = await request(express)
      .post("/tools/word_length")
      .set(bearer(ada))
      .send({ word: "hello" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { data: { length: 5 } });
    const def = app.toolDefinitions.find((tool) => tool.name === "word_length");
    assert.ok(def);
    const structured = await executeTool(
      def,
      callContext(STANDALONE_SERVICES, { user: { id: ada.userId }, transport: "mcp", headers: {} }),
      { word: "hello" },
    );
    assert.deepEqual(res.body, structured);
  });

  test("a write tool runs with the caller and is audited", async () => {
    audit.length = 0;
    const res = await request(express).post("/tools/bump").set(bearer(ada)).send({ by: 2 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { data: { by: 2, caller: ada.userId } });
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.action, "bump");
    assert.equal(audit[0]?.model, "tool");
  });

  test("invalid input: 400 validation_failed naming the field paths", async () => {
    const res = await request(express)
      .post("/tools/word_length")
      .set(bearer(ada))
      .send({ word: "far too long a word", meta: { rank: "high" } });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, "validation_failed");
    assert.ok(res.body.fields.word, JSON.stringify(res.body));
    assert.ok(res.body.fields["meta.rank"], JSON.stringify(res.body));
    const notObject = await request(express).post("/tools/bump").set(bearer(ada)).send([1]);
    assert.equal(notObject.status, 400);
    assert.equal(notObject.body.code, "validation_failed");
  });

  test("a non-JSON body is a 415", async () => {
    const res = await request(express)
      .post("/tools/bump")
      .set(bearer(ada))
      .set("Content-Type", "text/plain")
      .send("by=2");
    assert.equal(res.status, 415, JSON.stringify(res.body));
    assert.equal(res.body.code, "unsupported_media_type");
  });

  test("a tool the caller may not see answers exactly as an unknown name (404 unknown_tool)", async () => {
    // Invalid arguments too: a hidden tool's input schema must reveal nothing.
    const hidden = await request(express).post("/tools/admin_reset").set(bearer(ada)).send({});
    assert.equal(hidden.status, 404, JSON.stringify(hidden.body));
    assert.equal(hidden.body.code, "unknown_tool");
    const unknown = await request(express).post("/tools/no_such_tool").set(bearer(ada)).send({});
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, "unknown_tool");
    assert.equal(
      hidden.body.detail.replace("admin_reset", "X"),
      unknown.body.detail.replace("no_such_tool", "X"),
    );
    const admin = await signUp(express, "admin");
    await User.updateOne({ _id: admin.userId }, { admin: true });
    const allowed = await request(express)
      .post("/tools/admin_reset")
      .set(bearer(admin))
      .send({ really: true });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    assert.deepEqual(allowed.body, { data: { reset: true } });
  });

  test("anonymous callers: 401, unless the tool allows them", async () => {
    for (const name of ["word_length", "admin_reset", "no_such_tool"]) {
      const res = await request(express).post(`/tools/${name}`).send({ word: "hi" });
      assert.equal(res.status, 401, `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, "unauthenticated");
    }
    const ping = await request(express).post("/tools/ping");
    assert.equal(ping.status, 200, JSON.stringify(ping.body));
    assert.deepEqual(ping.body, { data: "pong" });
  });

  test("write tools spend the caller's write points; read-only tools do not", async () => {
    const limited = buildApp(2).build();
    const bob = await signUp(limited, "bob");
    for (let i = 0; i < 2; i++) {
      const res = await request(limited).post("/tools/bump").set(bearer(bob)).send({ by: i });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const refused = await request(limited).post("/tools/bump").set(bearer(bob)).send({ by: 3 });
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.ok(refused.headers["retry-after"]);
    const read = await request(limited)
      .post("/tools/word_length")
      .set(bearer(bob))
      .send({ word: "ok" });
    assert.equal(read.status, 200, JSON.stringify(read.body));
  });

  test("no custom tools: no /tools route; a router at /tools conflicts at build", async () => {
    const plain = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } });
    plain.register(modelRouter(Todo, todoOptions()));
    const res = await request(plain.build()).post("/tools/word_length").send({});
    assert.equal(res.status, 404);
    assert.equal(res.body.code, "not_found");
    const clash = new TerrenoApp({});
    clash.register("/tools", modelRouter(Todo, todoOptions()));
    clash.tool("ping", { description: "Anyone.", handler: () => "pong" });
    assert.throws(() => clash.build(), /\/tools serves the custom tools/);
  });
});
