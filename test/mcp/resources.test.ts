/**
 * Records as MCP resources, through the official SDK clients of both eras: templates,
 * resources/list, resources/read, completions and the links tool results carry, with the
 * read tool's permissions and hidden fields on every path, and no oracle for another user's
 * record.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import { signedUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  CLIENT_KINDS,
  connectSdkClient,
  type SdkTestClient,
  useListening,
} from "../helpers/mcpClients.js";
import { Todo } from "../helpers/models.js";
import { buildRestApp } from "../helpers/restApp.js";

useTestDatabase("mcp_resources");

const MISSING_ID = "0123456789abcdef01234567";

async function errorOf(run: () => Promise<unknown>): Promise<{ code: unknown; message: string }> {
  try {
    await run();
  } catch (error) {
    const { code, message } = error as { code: unknown; message: string };
    return { code, message };
  }
  assert.fail("expected an error");
}

async function allResources(client: SdkTestClient) {
  const resources: Array<{ uri: string; name: string }> = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page += 1) {
    const result = await client.listResources(cursor ? { cursor } : {});
    resources.push(...result.resources);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return resources;
}

describe("records as MCP resources", () => {
  const app = buildRestApp();
  const server = useListening(app);
  const [alice, bob] = signedUp(app, "alice", "bob");
  let milk: string;
  let dog: string;
  let bobs: string;

  before(async () => {
    const create = async (user: TestUser, body: Record<string, unknown>) =>
      (
        await request(app)
          .post("/todos")
          .set("Authorization", `Bearer ${user.token}`)
          .send(body)
          .expect(201)
      ).body.data.id as string;
    milk = await create(alice, { title: "Buy milk", internalNote: "secret plan" });
    dog = await create(alice, { title: "Walk the dog" });
    bobs = await create(bob, { title: "Bob's milk" });
  });

  for (const kind of CLIENT_KINDS) {
    describe(kind, () => {
      let client: SdkTestClient;
      before(async () => {
        client = await connectSdkClient(kind, server.url, alice.token);
      });
      after(() => client.close());

      test("the server declares resources and completions", () => {
        const capabilities = client.getServerCapabilities() ?? {};
        assert.ok(capabilities.resources, JSON.stringify(capabilities));
        assert.ok(capabilities.completions, JSON.stringify(capabilities));
      });

      test("every model with a read tool has a record template", async () => {
        const { resourceTemplates } = await client.listResourceTemplates();
        const uris = resourceTemplates.map((t) => t.uriTemplate).sort();
        assert.deepEqual(uris, ["terreno://foods/{id}", "terreno://todos/{id}"]);
        for (const template of resourceTemplates)
          assert.equal(template.mimeType, "application/json");
      });

      test("resources/list pages through the caller's own records, named by title", async () => {
        const resources = await allResources(client);
        const todos = resources.filter((r) => r.uri.startsWith("terreno://todos/"));
        // Most recent first; Bob's record is not Alice's to list.
        assert.deepEqual(
          todos.map((r) => [r.uri, r.name]),
          [
            [`terreno://todos/${dog}`, "Walk the dog"],
            [`terreno://todos/${milk}`, "Buy milk"],
          ],
        );
      });

      test("resources/read answers what the read tool answers, hidden fields left out", async () => {
        const uri = `terreno://todos/${milk}`;
        const { contents } = await client.readResource({ uri });
        assert.equal(contents.length, 1);
        assert.equal(contents[0].uri, uri);
        assert.equal(contents[0].mimeType, "application/json");
        const record = JSON.parse(contents[0].text ?? "null");
        assert.equal(record.id, milk);
        assert.equal(record.title, "Buy milk");
        assert.equal("internalNote" in record, false);
        const tool = (await client.callTool({ name: "todos_read", arguments: { id: milk } })) as {
          structuredContent: { data: unknown };
        };
        assert.deepEqual(record, tool.structuredContent.data);
      });

      test("another user's record answers exactly as a missing one", async () => {
        const answer = async (uri: string) => {
          const error = await errorOf(() => client.readResource({ uri }));
          return { code: error.code, message: error.message.replace(uri, "<uri>") };
        };
        const missing = await answer(`terreno://todos/${MISSING_ID}`);
        assert.equal(missing.code, -32602);
        assert.deepEqual(await answer(`terreno://todos/${bobs}`), missing);
        assert.deepEqual(await answer("terreno://todos/not-an-id"), missing);
        assert.deepEqual(await answer(`terreno://nothing/${milk}`), missing);
        assert.deepEqual(await answer(`https://example.com/${milk}`), missing);
      });

      test("completions offer the caller's own ids, by id prefix or title", async () => {
        const complete = async (value: string) =>
          (
            await client.complete({
              ref: { type: "ref/resource", uri: "terreno://todos/{id}" },
              argument: { name: "id", value },
            })
          ).completion;
        assert.deepEqual((await complete("")).values, [dog, milk]);
        assert.deepEqual((await complete(milk)).values, [milk]);
        const prefix = milk.slice(0, 22);
        assert.deepEqual(
          (await complete(prefix)).values,
          [dog, milk].filter((id) => id.startsWith(prefix)),
        );
        assert.deepEqual((await complete(milk.toUpperCase())).values, [milk]);
        assert.deepEqual((await complete("MILK")).values, [milk]);
        // Bob's record: not by its id, not by its title.
        assert.deepEqual((await complete(bobs)).values, []);
        assert.deepEqual((await complete("Bob")).values, []);
        // A hidden field is never matched.
        assert.deepEqual((await complete("secret")).values, []);
        // An argument the template does not have, or another template.
        const other = await client.complete({
          ref: { type: "ref/resource", uri: "terreno://todos/{id}" },
          argument: { name: "title", value: "B" },
        });
        assert.deepEqual(other.completion.values, []);
      });

      test("tool results link the records they return", async () => {
        const read = (await client.callTool({ name: "todos_read", arguments: { id: milk } })) as {
          content: Array<{ type: string; uri?: string; name?: string }>;
        };
        const links = read.content.filter((c) => c.type === "resource_link");
        assert.deepEqual(
          links.map((l) => [l.uri, l.name]),
          [[`terreno://todos/${milk}`, "Buy milk"]],
        );
        const listed = (await client.callTool({ name: "todos_list", arguments: {} })) as {
          content: Array<{ type: string; uri?: string }>;
        };
        const listedLinks = listed.content.filter((c) => c.type === "resource_link");
        assert.deepEqual(
          listedLinks.map((l) => l.uri).sort(),
          [`terreno://todos/${dog}`, `terreno://todos/${milk}`].sort(),
        );
      });
    });
  }

  test("2026-07-28 results carry per-user cache hints, never shared", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "resources-test", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const uri = `terreno://todos/${milk}`;
    for (const [method, params, name] of [
      ["resources/read", { uri }, uri],
      ["resources/list", {}, undefined],
      ["resources/templates/list", {}, undefined],
    ] as const) {
      const req = request(app)
        .post("/mcp")
        .set("Accept", "application/json, text/event-stream")
        .set("Content-Type", "application/json")
        .set("Authorization", `Bearer ${alice.token}`)
        .set("mcp-protocol-version", "2026-07-28")
        .set("mcp-method", method);
      if (name) req.set("mcp-name", name);
      const res = await req.send(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
      );
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.equal(res.body.result.cacheScope, "private", method);
      assert.equal(res.body.result.ttlMs, 0, method);
    }
    // The 2025 era's wire never carries them.
    const legacy = await request(app)
      .post("/mcp")
      .set("Accept", "application/json, text/event-stream")
      .set("Authorization", `Bearer ${alice.token}`)
      .send({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri } });
    assert.equal(legacy.status, 200, legacy.text.slice(0, 300));
    assert.equal("cacheScope" in legacy.body.result, false);
    assert.ok(await Todo.exists({ _id: milk }));
  });
});
