// Issue #12, round trips: whatever a read returns, an update accepts back. For generated
// Todos (scalars, dates in both accepted forms, a string array, an array of subdocuments and
// a nested object), on REST (PATCH) and on the tools (MCP `todos_update` through a real SDK
// client): create, read, write "the same data" back (see sameData.ts), and assert that the
// update succeeds and changes nothing, in the database (not even updatedAt or __v) or in reads.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Express } from "express";
import fc from "fast-check";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import type { JsonSchema } from "../../src/schema/types.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  connectClient,
  type Listening,
  listen,
  type McpTestClient,
} from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import { sameData } from "./sameData.js";

useTestDatabase("roundtrip");

const RUNS = Number(process.env.ROUNDTRIP_RUNS ?? 40);

/** Text FerretDB stores as given: no NUL characters. Short enough for every maxlength. */
const text = (minLength: number) =>
  fc
    .string({ unit: "grapheme", minLength, maxLength: 12 })
    .filter((value) => !value.includes("\u0000") && value.trim().length >= minLength);

/** A date in either accepted form: a full date-time, or a date alone (00:00 UTC). */
const date = fc
  .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-12-31T23:59:59Z") })
  .filter((value) => !Number.isNaN(value.getTime()))
  .chain((value) => fc.constantFrom(value.toISOString(), value.toISOString().slice(0, 10)));

const todoBody = fc.record(
  {
    title: text(1),
    completed: fc.boolean(),
    priority: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.double({ min: 1, max: 5, noNaN: true })),
    dueDate: date,
    tags: fc.array(text(0), { maxLength: 4 }),
    internalNote: text(0),
    checklist: fc.array(
      fc.record({ text: text(1), done: fc.boolean() }, { requiredKeys: ["text"] }),
      { maxLength: 4 },
    ),
    reminder: fc.record(
      { at: date, channel: fc.constantFrom("email", "push") },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ["title"] },
);

/** What a surface does: create, read and update one Todo, as its callers see them. */
interface Surface {
  /** The body schema this surface's update takes. */
  updateSchema: JsonSchema;
  /** What each surface may write on create (tools do not see internalNote). */
  createBody(body: Record<string, unknown>): Record<string, unknown>;
  create(body: Record<string, unknown>): Promise<Record<string, unknown>>;
  read(id: string): Promise<Record<string, unknown>>;
  update(id: string, body: Record<string, unknown>): Promise<{ ok: boolean; detail: string }>;
}

/** The stored document as plain JSON, for "nothing changed" at the database level. */
async function stored(id: string): Promise<unknown> {
  return JSON.parse(JSON.stringify(await Todo.findById(id).lean()));
}

async function assertRoundTrip(surface: Surface, body: Record<string, unknown>): Promise<void> {
  const created = await surface.create(surface.createBody(body));
  const id = String(created.id);
  const read = await surface.read(id);
  const before = await stored(id);
  const same = sameData(read, surface.updateSchema) as Record<string, unknown>;
  assert.ok("title" in same, "the written-back data holds every writable field read");
  const result = await surface.update(id, same);
  assert.ok(result.ok, `the read written back was refused: ${result.detail}`);
  assert.deepEqual(await stored(id), before, "the database is unchanged");
  assert.deepEqual(await surface.read(id), read, "the next read is unchanged");
}

describe("round trips: a read written back succeeds and changes nothing", () => {
  let app: Express;
  let terreno: TerrenoApp;
  let server: Listening;
  let alice: TestUser;
  let mcp: McpTestClient;

  before(async () => {
    terreno = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } }).register(
      modelRouter(Todo, todoOptions()),
    );
    app = terreno.build();
    server = await listen(app);
    alice = await signUp(app, "alice");
    mcp = await connectClient("v2-auto", server.url, alice.token);
  });
  after(async () => {
    await mcp.close();
    await server.close();
  });

  test("on REST: GET, then PATCH with the same data", async () => {
    const [resource] = terreno.resources;
    const surface: Surface = {
      updateSchema: resource.views.rest.updateSchema,
      createBody: (body) => body,
      async create(body) {
        const res = await request(app).post("/todos").set(bearer(alice)).send(body);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.data;
      },
      async read(id) {
        const res = await request(app).get(`/todos/${id}`).set(bearer(alice));
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.data;
      },
      async update(id, body) {
        const res = await request(app).patch(`/todos/${id}`).set(bearer(alice)).send(body);
        return { ok: res.status === 200, detail: res.text };
      },
    };
    await fc.assert(
      fc.asyncProperty(todoBody, (body) => assertRoundTrip(surface, body)),
      { numRuns: RUNS },
    );
  });

  test("on the tools: todos_read, then todos_update with the same data", async () => {
    const tools = await mcp.listTools();
    const updateTool = tools.find((tool) => tool.name === "todos_update");
    assert.ok(updateTool, "todos_update is listed");
    // The tool's own input schema, as the client received it: `id` plus the body's fields.
    const updateSchema = updateTool.inputSchema as JsonSchema;
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await mcp.callTool(name, args);
      return { result, detail: result.content.map((c) => c.text).join("\n") };
    };
    const data = (result: { structuredContent?: Record<string, unknown> }) =>
      result.structuredContent?.data as Record<string, unknown>;
    const surface: Surface = {
      updateSchema,
      createBody: ({ internalNote: _hidden, ...body }) => body,
      async create(body) {
        const { result, detail } = await call("todos_create", body);
        assert.equal(result.isError, undefined, detail);
        return data(result);
      },
      async read(id) {
        const { result, detail } = await call("todos_read", { id });
        assert.equal(result.isError, undefined, detail);
        return data(result);
      },
      async update(_id, args) {
        // `args` still has the document's `id`: the tool takes it beside the fields.
        const { result, detail } = await call("todos_update", args);
        return { ok: result.isError === undefined, detail };
      },
    };
    await fc.assert(
      fc.asyncProperty(todoBody, (body) => assertRoundTrip(surface, body)),
      { numRuns: RUNS },
    );
  });

  test("sameData keeps exactly the write schema's properties, at every depth", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: {
        a: { type: "string" },
        list: {
          anyOf: [
            {
              type: "array",
              items: { type: "object", properties: { id: { type: "string" }, x: {} } },
            },
            { type: "null" },
          ],
        },
        map: { type: "object", additionalProperties: { type: "number" } },
      },
    };
    assert.deepEqual(
      sameData(
        {
          id: "top",
          a: "1",
          createdAt: "2031-01-01T00:00:00.000Z",
          list: [{ id: "i", x: 1, createdAt: "t" }],
          map: { k: 1 },
        },
        schema,
      ),
      { a: "1", list: [{ id: "i", x: 1 }], map: { k: 1 } },
    );
  });
});
