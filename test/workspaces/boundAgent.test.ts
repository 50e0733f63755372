/**
 * Issue #35: an agent holding a personal access token bound to workspace A reaches nothing of
 * workspace B, though its person is a member of both: not through a tool (list, read, create,
 * update, delete, an action), a resource, a completion, nor the X-Workspace-Id header. Also the
 * choice itself: one membership needs none, several without one is a 400 naming them, a
 * workspace the caller is not in is a 404 (on REST, MCP and the AI SDK tools).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { compileErrors, validate } from "@readme/openapi-parser";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { z } from "zod";
import { getMCPToolsAsync } from "../../src/ai/index.js";
import {
  type AuditEvent,
  modelRouter,
  TerrenoApp,
  toUser,
  WorkspaceRole,
} from "../../src/index.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  CLIENT_KINDS,
  connectSdkClient,
  type Listening,
  listen,
  type SdkTestClient,
  type ToolCallOutcome,
  toolError,
} from "../helpers/mcpClients.js";
import { User } from "../helpers/models.js";
import { JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("workspaces_bound_agent");

const ticketSchema = new Schema({
  title: { type: String, required: true },
  status: { type: String, enum: ["open", "closed"], default: "open" },
  workspaceId: { type: Schema.Types.ObjectId, ref: "Workspace", required: true },
});
const Ticket = mongoose.models.Ticket ?? mongoose.model("Ticket", ticketSchema);

const AUDITED: AuditEvent[] = [];

function buildApp(): TerrenoApp {
  return new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    workspaces: true,
    mcp: { discovery: true },
    onAudit: (event) => {
      AUDITED.push(event);
    },
  }).register(
    modelRouter(Ticket, {
      workspace: "workspaceId",
      permissions: {
        list: [WorkspaceRole("viewer")],
        read: [WorkspaceRole("viewer")],
        create: [WorkspaceRole("member")],
        update: [WorkspaceRole("member")],
        delete: [WorkspaceRole("owner")],
      },
      queryFields: ["title", "status", "workspaceId"],
      mcp: { methods: ["list", "read", "create", "update", "delete"] },
      actions: {
        close: {
          scope: "instance",
          description: "Closes a ticket.",
          input: z.object({}),
          permissions: [WorkspaceRole("member")],
          handler: async (_ctx, doc) => {
            const ticket = doc as mongoose.HydratedDocument<{ status: string }>;
            ticket.status = "closed";
            await ticket.save();
            return ticket;
          },
        },
      },
    }),
  );
}

function text(result: unknown): string {
  return JSON.stringify(result);
}

describe("a PAT bound to workspace A", () => {
  const app = buildApp();
  const express = app.build();
  let server: Listening;
  let alice: TestUser;
  let bob: TestUser;
  let pat: string;
  const ids = { a: "", b: "", c: "", aTicket: "", bTicket: "" };

  before(async () => {
    server = await listen(express);
    alice = await signUp(express, "alice");
    bob = await signUp(express, "bob");
    const workspaces = app.workspaces;
    assert.ok(workspaces);
    const { Workspace, Membership } = workspaces;
    ids.a = String((await Workspace.create({ name: "Alpha team" }))._id);
    ids.b = String((await Workspace.create({ name: "Beta team" }))._id);
    ids.c = String((await Workspace.create({ name: "Bob's own" }))._id);
    await Membership.create([
      { workspaceId: ids.a, userId: alice.userId, role: "owner" },
      { workspaceId: ids.b, userId: alice.userId, role: "owner" },
      { workspaceId: ids.c, userId: bob.userId, role: "owner" },
    ]);
    ids.aTicket = String((await Ticket.create({ title: "Alpha bug", workspaceId: ids.a }))._id);
    ids.bTicket = String((await Ticket.create({ title: "Beta secret", workspaceId: ids.b }))._id);
    const created = await request(express)
      .post("/auth/tokens")
      .set("Authorization", `Bearer ${alice.token}`)
      .send({ name: "agent", scope: "write", workspaceId: ids.a })
      .expect(201);
    assert.equal(created.body.data.workspaceId, ids.a);
    pat = created.body.data.token;
  });
  after(() => server.close());

  test("a token cannot be bound to a workspace its person is not in (404)", async () => {
    const refused = await request(express)
      .post("/auth/tokens")
      .set("Authorization", `Bearer ${alice.token}`)
      .send({ name: "sneaky", scope: "read", workspaceId: ids.c })
      .expect(404);
    assert.equal(refused.body.code, "not_found");
  });

  test("REST: the bound token lists and reads only A; B's ticket is a 404; the header cannot move it", async () => {
    const listed = await request(express)
      .get("/tickets")
      .set("Authorization", `Bearer ${pat}`)
      .expect(200);
    assert.deepEqual(
      listed.body.data.map((t: { title: string }) => t.title),
      ["Alpha bug"],
    );
    const theirs = await request(express)
      .get(`/tickets/${ids.bTicket}`)
      .set("Authorization", `Bearer ${pat}`)
      .expect(404);
    assert.ok(!text(theirs.body).includes("Beta secret"));
    const moved = await request(express)
      .get("/tickets")
      .set("Authorization", `Bearer ${pat}`)
      .set("X-Workspace-Id", ids.b)
      .expect(403);
    assert.equal(moved.body.code, "forbidden");
    assert.ok(!text(moved.body).includes("Beta secret"));
    // The header naming the token's own workspace is fine.
    await request(express)
      .get("/tickets")
      .set("Authorization", `Bearer ${pat}`)
      .set("X-Workspace-Id", ids.a)
      .expect(200);
    const patched = await request(express)
      .patch(`/tickets/${ids.bTicket}`)
      .set("Authorization", `Bearer ${pat}`)
      .send({ title: "pwned" })
      .expect(404);
    assert.equal(patched.body.code, "not_found");
    assert.equal(
      (await Ticket.findById(ids.bTicket).lean<{ title: string }>())?.title,
      "Beta secret",
    );
  });

  test("REST: a session in two workspaces must choose; the header chooses; a foreign workspace is 404", async () => {
    const unchosen = await request(express)
      .get("/tickets")
      .set("Authorization", `Bearer ${alice.token}`)
      .expect(400);
    assert.equal(unchosen.body.code, "validation_failed");
    for (const needle of ["Alpha team", "Beta team", ids.a, ids.b, "X-Workspace-Id"]) {
      assert.ok(unchosen.body.detail.includes(needle), `${needle} in ${unchosen.body.detail}`);
    }
    const inB = await request(express)
      .get("/tickets")
      .set("Authorization", `Bearer ${alice.token}`)
      .set("X-Workspace-Id", ids.b)
      .expect(200);
    assert.deepEqual(
      inB.body.data.map((t: { title: string }) => t.title),
      ["Beta secret"],
    );
    const foreign = await request(express)
      .get("/tickets")
      .set("Authorization", `Bearer ${alice.token}`)
      .set("X-Workspace-Id", ids.c)
      .expect(404);
    assert.equal(foreign.body.code, "not_found");
    // Bob (one workspace: no choice needed) is an outsider to A's ticket: 404, as if missing.
    const outsider = await request(express)
      .get(`/tickets/${ids.aTicket}`)
      .set("Authorization", `Bearer ${bob.token}`)
      .expect(404);
    assert.ok(!text(outsider.body).includes("Alpha bug"));
    await request(express)
      .get("/tickets")
      .set("Authorization", `Bearer ${bob.token}`)
      .expect(200)
      .then((res) => assert.deepEqual(res.body.data, []));
  });

  for (const kind of CLIENT_KINDS) {
    describe(`MCP ${kind}`, () => {
      let client: SdkTestClient;
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as ToolCallOutcome;
      before(async () => {
        client = await connectSdkClient(kind, server.url, pat);
      });
      after(() => client.close());

      test("tools: list shows A only; read, update, delete and the action on B are not_found", async () => {
        const listed = await call("tickets_list", {});
        assert.ok(!listed.isError, text(listed));
        assert.ok(text(listed).includes("Alpha bug"));
        assert.ok(!text(listed).includes("Beta secret"));
        const filtered = await call("tickets_list", {
          filter: { $or: [{ workspaceId: ids.b }, { title: "Beta secret" }] },
        });
        assert.ok(!text(filtered).includes("Beta secret"), text(filtered));
        for (const [name, args] of [
          ["tickets_read", { id: ids.bTicket }],
          ["tickets_update", { id: ids.bTicket, title: "pwned" }],
          ["tickets_close", { id: ids.bTicket }],
          ["tickets_delete", { id: ids.bTicket }],
        ] as const) {
          const refused = await call(name, args);
          assert.equal(refused.isError, true, `${name}: ${text(refused)}`);
          assert.equal(toolError(refused).code, "not_found", name);
          assert.ok(!text(refused).includes("Beta secret"), name);
        }
        const stored = await Ticket.findById(ids.bTicket).lean<{ title: string; status: string }>();
        assert.deepEqual([stored?.title, stored?.status], ["Beta secret", "open"]);
      });

      test("tools: a create lands in A; naming B's id is refused and writes nothing", async () => {
        const title = `agent made ${kind}`;
        const refused = await call("tickets_create", { title, workspaceId: ids.b });
        assert.equal(refused.isError, true, text(refused));
        assert.equal(toolError(refused).code, "validation_failed");
        assert.equal(await Ticket.countDocuments({ title }), 0);
        const made = await call("tickets_create", { title });
        assert.ok(!made.isError, text(made));
        const stored = await Ticket.findOne({ title }).lean<{
          _id: unknown;
          workspaceId: unknown;
        }>();
        assert.equal(String(stored?.workspaceId), ids.a);
        // The audit event names the workspace the write acted in.
        const event = AUDITED.find(
          (e) => e.action === "create" && e.documentId === String(stored?._id),
        );
        assert.equal(event?.workspaceId, ids.a);
        await Ticket.deleteOne({ title });
      });

      test("resources and completions: B's ticket is neither listed, read nor completed", async () => {
        const { resources } = await client.listResources();
        const uris = resources.map((r) => r.uri);
        assert.ok(uris.includes(`terreno://tickets/${ids.aTicket}`), text(uris));
        assert.ok(!uris.includes(`terreno://tickets/${ids.bTicket}`));
        await assert.rejects(client.readResource({ uri: `terreno://tickets/${ids.bTicket}` }));
        const complete = async (value: string) =>
          (
            await client.complete({
              ref: { type: "ref/resource", uri: "terreno://tickets/{id}" },
              argument: { name: "id", value },
            })
          ).completion.values;
        assert.deepEqual(await complete(""), [ids.aTicket]);
        assert.deepEqual(await complete(ids.bTicket), []);
        assert.deepEqual(await complete("Beta"), []);
      });

      test("whoami names the bound workspace and both memberships; describe_models marks the model", async () => {
        const who = await call("whoami", {});
        const out = who.structuredContent as {
          workspace: { id: string; name: string; role: string };
          memberships: Array<{ id: string; name: string }>;
        };
        assert.deepEqual(out.workspace, { id: ids.a, name: "Alpha team", role: "owner" });
        assert.deepEqual(
          out.memberships.map((m) => m.name),
          ["Alpha team", "Beta team"],
        );
        const models = (await call("describe_models", { query: "Ticket" })).structuredContent as {
          models: Array<{ name: string; workspaceField?: string }>;
        };
        assert.equal(models.models.find((m) => m.name === "Ticket")?.workspaceField, "workspaceId");
      });
    });
  }

  test("MCP: a header naming another workspace than the bound token's is refused (forbidden)", async () => {
    const client = await connectSdkClient("v2-auto", server.url, pat, undefined, {
      "X-Workspace-Id": ids.b,
    });
    try {
      const listed = (await client.callTool({
        name: "tickets_list",
        arguments: {},
      })) as ToolCallOutcome;
      assert.equal(listed.isError, true, text(listed));
      assert.equal(toolError(listed).code, "forbidden");
      assert.ok(!text(listed).includes("Beta secret"));
    } finally {
      await client.close();
    }
  });

  test("MCP: a session in two workspaces gets a clear error listing them, and chooses with the header", async () => {
    const unchosen = await connectSdkClient("v2-auto", server.url, alice.token);
    try {
      const listed = (await unchosen.callTool({
        name: "tickets_list",
        arguments: {},
      })) as ToolCallOutcome;
      assert.equal(listed.isError, true, text(listed));
      const error = toolError(listed);
      assert.equal(error.code, "validation_failed");
      for (const needle of ["Alpha team", "Beta team", ids.a, ids.b]) {
        assert.ok(error.detail.includes(needle), error.detail);
      }
    } finally {
      await unchosen.close();
    }
    const inB = await connectSdkClient("v2-auto", server.url, alice.token, undefined, {
      "X-Workspace-Id": ids.b,
    });
    try {
      const listed = (await inB.callTool({
        name: "tickets_list",
        arguments: {},
      })) as ToolCallOutcome;
      assert.ok(text(listed).includes("Beta secret"));
      assert.ok(!text(listed).includes("Alpha bug"));
    } finally {
      await inB.close();
    }
  });

  test("OpenAPI: the scoped routes take X-Workspace-Id, and the field is read-only", async () => {
    const document = (await request(express).get("/openapi.json").expect(200)).body;
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
    assert.ok(result.valid, compileErrors(result));
    for (const [path, method] of [
      ["/tickets", "get"],
      ["/tickets", "post"],
      ["/tickets/{id}", "get"],
      ["/tickets/{id}", "patch"],
      ["/tickets/{id}", "delete"],
      ["/tickets/{id}/close", "post"],
    ]) {
      const parameters = document.paths[path][method].parameters as Array<{
        name: string;
        in: string;
      }>;
      assert.ok(
        parameters.some((p) => p.name === "X-Workspace-Id" && p.in === "header"),
        `${method} ${path}`,
      );
    }
    const schemas = document.components.schemas;
    assert.equal(schemas.Ticket.properties.workspaceId.readOnly, true);
    assert.equal(schemas.TicketUpdate.properties.workspaceId.readOnly, true);
    assert.equal("workspaceId" in schemas.TicketCreate.properties, false);
  });

  test("removing a member ends their access on the next call, bound token included", async () => {
    const carol = await signUp(express, "carol");
    const workspaces = app.workspaces;
    assert.ok(workspaces);
    await workspaces.Membership.create({
      workspaceId: ids.a,
      userId: carol.userId,
      role: "viewer",
    });
    const token = (
      await request(express)
        .post("/auth/tokens")
        .set("Authorization", `Bearer ${carol.token}`)
        .send({ name: "carol's agent", scope: "read", workspaceId: ids.a })
        .expect(201)
    ).body.data.token as string;
    for (const credential of [carol.token, token]) {
      await request(express)
        .get(`/tickets/${ids.aTicket}`)
        .set("Authorization", `Bearer ${credential}`)
        .expect(200);
    }
    await workspaces.Membership.deleteOne({ workspaceId: ids.a, userId: carol.userId });
    for (const credential of [carol.token, token]) {
      const gone = await request(express)
        .get(`/tickets/${ids.aTicket}`)
        .set("Authorization", `Bearer ${credential}`)
        .expect(404);
      assert.ok(!text(gone.body).includes("Alpha bug"));
    }
  });

  test("AI SDK tools: workspaceId chooses; the list holds that workspace only", async () => {
    const doc = await User.findById(alice.userId);
    assert.ok(doc);
    const tools = await getMCPToolsAsync({ app, user: toUser(doc), workspaceId: ids.a });
    const run = tools.tickets_list?.execute;
    assert.ok(run);
    const output = await run({}, { toolCallId: "t", messages: [], context: {} });
    assert.ok(text(output).includes("Alpha bug"));
    assert.ok(!text(output).includes("Beta secret"));
    const read = await tools.tickets_read?.execute?.(
      { id: ids.bTicket },
      { toolCallId: "t2", messages: [], context: {} },
    );
    assert.equal((read as { error?: { code?: string } }).error?.code, "not_found");
  });
});
