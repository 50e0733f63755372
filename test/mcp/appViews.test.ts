/**
 * MCP Apps views (`mcp: {apps: true}`) through the official SDK clients of both eras: list and
 * read tools link a `ui://` view, `resources/read` serves its HTML as
 * `text/html;profile=mcp-app` under a strict policy, hidden fields never reach the HTML or its
 * generated field lists, no record data is ever in it, and a view of a tool the caller does not
 * see answers exactly like one that does not exist.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { IsAdmin, IsAuthenticated, IsOwner } from "../../src/core/permissions.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { CLIENT_KINDS, type ClientKind, type Listening, listen } from "../helpers/mcpClients.js";
import { Food, Todo, User } from "../helpers/models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("mcp_app_views");

const MIME = "text/html;profile=mcp-app";
const EXTENSION = "io.modelcontextprotocol/ui";

interface RawClient {
  listTools(): Promise<{ tools: Array<{ name: string; _meta?: Record<string, unknown> }> }>;
  listResources(): Promise<{ resources: Array<{ uri: string; mimeType?: string }> }>;
  readResource(params: { uri: string }): Promise<{
    contents: Array<{
      uri: string;
      mimeType?: string;
      text?: string;
      _meta?: Record<string, unknown>;
    }>;
  }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  getServerCapabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

async function connect(kind: ClientKind, url: string, token: string): Promise<RawClient> {
  const headers = { Authorization: `Bearer ${token}` };
  const endpoint = new URL("/mcp", url);
  if (kind === "v1") {
    const client = new ClientV1({ name: "apps-test-v1", version: "1.0.0" });
    await client.connect(new TransportV1(endpoint, { requestInit: { headers } }));
    return client as unknown as RawClient;
  }
  const client = new ClientV2(
    { name: "apps-test-v2", version: "1.0.0" },
    { versionNegotiation: { mode: kind === "v2-legacy" ? "legacy" : "auto" } },
  );
  await client.connect(new TransportV2(endpoint, { requestInit: { headers } }));
  return client as unknown as RawClient;
}

function buildApp(apps: boolean) {
  return new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    mcp: { apps },
  })
    .register(modelRouter(Todo, todoOptions()))
    .register(
      modelRouter(
        Food,
        foodOptions({
          permissions: { list: [IsAdmin], read: [IsAdmin], create: [], update: [], delete: [] },
        }),
      ),
    )
    .register(
      modelRouter(User, {
        permissions: {
          list: [IsAuthenticated],
          read: [IsOwner],
          create: [],
          update: [],
          delete: [],
        },
        mcp: {},
      }),
    )
    .build();
}

/** The view's config: the JSON data block the view's script reads (schema only). */
function configOf(html: string): { fields: Array<{ name: string }>; columns: string[] } {
  const match = /<script type="application\/json" id="terreno-view-config">(.*?)<\/script>/s.exec(
    html,
  );
  assert.ok(match?.[1], "the view carries its config");
  return JSON.parse(match[1]);
}

describe("MCP Apps views", () => {
  let server: Listening;
  let plain: Listening;
  let alice: TestUser;
  const secretTitle = `secret-title-${Date.now()}`;

  before(async () => {
    const app = buildApp(true);
    server = await listen(app);
    plain = await listen(buildApp(false));
    alice = await signUp(app, "alice");
    const created = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: secretTitle, internalNote: "never in a view" });
    assert.equal(created.status, 201);
  });
  after(async () => {
    await server.close();
    await plain.close();
  });

  for (const kind of CLIENT_KINDS) {
    describe(kind, () => {
      let client: RawClient;
      before(async () => {
        client = await connect(kind, server.url, alice.token);
      });
      after(() => client.close());

      test("list and read tools link their ui:// view; writes link none", async () => {
        const { tools } = await client.listTools();
        const meta = (name: string) => tools.find((tool) => tool.name === name)?._meta;
        for (const name of ["todos_list", "todos_read", "users_list", "users_read"]) {
          const uri = `ui://terreno/${name}`;
          assert.deepEqual(meta(name)?.ui, { resourceUri: uri }, name);
          assert.equal(meta(name)?.["ui/resourceUri"], uri, `${name}: the legacy key too`);
        }
        for (const name of ["todos_create", "todos_update", "todos_delete"]) {
          assert.equal(meta(name), undefined, name);
        }
      });

      test("the capabilities declare resources and the apps extension", () => {
        const capabilities = client.getServerCapabilities() ?? {};
        assert.ok(capabilities.resources, "resources");
        if (kind !== "v1") {
          assert.deepEqual((capabilities.extensions as Record<string, unknown>)?.[EXTENSION], {
            mimeTypes: [MIME],
          });
        }
      });

      test("resources/read returns the view's HTML, MIME type and a strict policy", async () => {
        const { contents } = await client.readResource({ uri: "ui://terreno/todos_list" });
        assert.equal(contents.length, 1);
        const [content] = contents;
        assert.equal(content?.uri, "ui://terreno/todos_list");
        assert.equal(content?.mimeType, MIME);
        const html = content?.text ?? "";
        assert.match(html, /^<!doctype html>/);
        const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
        assert.ok(csp, "a CSP meta tag");
        assert.match(csp, /default-src 'none'/);
        assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
        assert.doesNotMatch(csp, /https?:|\*|'unsafe-inline'|'unsafe-eval'/);
        // Nothing loaded from anywhere: one inline module script, one inline stylesheet.
        assert.doesNotMatch(html, /<script[^>]*\ssrc=|<link\b|<img\b|<iframe\b/i);
        assert.deepEqual(content?._meta?.ui, {
          csp: { connectDomains: [], resourceDomains: [] },
          prefersBorder: true,
        });
      });

      test("hidden fields appear neither in the HTML nor in its generated field lists", async () => {
        for (const uri of ["ui://terreno/todos_list", "ui://terreno/todos_read"]) {
          const html = (await client.readResource({ uri })).contents[0]?.text ?? "";
          const config = configOf(html);
          const names = config.fields.map((field) => field.name);
          assert.ok(names.includes("title") && names.includes("completed"), uri);
          assert.ok(config.columns.includes("title"), uri);
          assert.ok(!names.includes("internalNote") && !config.columns.includes("internalNote"));
          assert.doesNotMatch(html, /internalNote/);
        }
        const users =
          (await client.readResource({ uri: "ui://terreno/users_list" })).contents[0]?.text ?? "";
        const userFields = configOf(users).fields.map((field) => field.name);
        assert.ok(userFields.includes("email"), "email");
        assert.ok(!userFields.includes("passwordHash"), "select: false stays hidden");
        assert.doesNotMatch(users, /passwordHash/);
      });

      test("the HTML never embeds record data; the tool result carries it, text included", async () => {
        const html =
          (await client.readResource({ uri: "ui://terreno/todos_list" })).contents[0]?.text ?? "";
        assert.ok(!html.includes(secretTitle));
        const result = (await client.callTool({ name: "todos_list", arguments: {} })) as {
          content: Array<{ type: string; text?: string }>;
          structuredContent?: { data: Array<{ title: string }> };
        };
        assert.ok(result.structuredContent?.data.some((todo) => todo.title === secretTitle));
        assert.ok(
          result.content.some((part) => part.type === "text" && part.text?.includes(secretTitle)),
        );
      });

      test("resources/list names the views the caller's tools link, and only those", async () => {
        // Records are resources too (terreno://…); the views are the ui:// ones.
        const resources = (await client.listResources()).resources.filter((resource) =>
          resource.uri.startsWith("ui://"),
        );
        const uris = resources.map((resource) => resource.uri).sort();
        assert.deepEqual(uris, [
          "ui://terreno/todos_list",
          "ui://terreno/todos_read",
          "ui://terreno/users_list",
          "ui://terreno/users_read",
        ]);
        assert.ok(resources.every((resource) => resource.mimeType === MIME));
      });

      test("a view of a tool the caller does not see answers like one that does not exist", async () => {
        const refusal = async (uri: string) => {
          try {
            await client.readResource({ uri });
          } catch (error) {
            const { code, message } = error as { code?: number; message: string };
            return { code, message: message.replaceAll(uri, "<uri>") };
          }
          assert.fail(`${uri} was read`);
        };
        const hidden = await refusal("ui://terreno/foods_list");
        const missing = await refusal("ui://terreno/nothing_list");
        assert.deepEqual(hidden, missing);
      });
    });
  }

  test("without apps: no _meta, no ui:// views and no apps extension", async () => {
    const client = await connect("v2-auto", plain.url, alice.token);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.every((tool) => tool._meta?.ui === undefined));
      const capabilities = client.getServerCapabilities() ?? {};
      assert.equal(
        (capabilities.extensions as Record<string, unknown> | undefined)?.[EXTENSION],
        undefined,
      );
    } finally {
      await client.close();
    }
  });
});
