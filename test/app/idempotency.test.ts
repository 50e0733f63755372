// Idempotent retries (issue 36, item 2). Threat: a client retries a create after a timeout, on
// whichever instance the load balancer picks, and the record exists twice. Two app instances
// (two TerrenoApps, each on its own connection to one FerretDB database) answer a key's first
// request once: the claim is a unique insert, atomic on FerretDB and MongoDB alike, so what this
// file proves holds on both, whatever the pooling.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Connection } from "mongoose";
import { z } from "zod";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import type { PlainObject, RequestContext } from "../../src/core/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { useConnection, useTestDatabase } from "../helpers/database.js";
import { type Listening, listen } from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

const database = useTestDatabase("idempotency");

/** A create whose title starts with "slow" waits here until the test opens the gate. */
let gate: { entered: () => void; open: Promise<void> } | undefined;
let toolRuns = 0;
/** Calls of `flaky`: its first call of each note fails with a server fault. */
const flakyCalls = new Map<string, number>();

function preCreate(body: PlainObject, ctx: RequestContext) {
  const owned = { ...body, ownerId: ctx.user?.id };
  if (typeof body.title !== "string" || !body.title.startsWith("slow") || !gate) return owned;
  gate.entered();
  return gate.open.then(() => owned);
}

function buildApp(users: typeof User, todos: typeof Todo) {
  return new TerrenoApp({ userModel: users, auth: { jwt: { secret: JWT_SECRET } } })
    .register(modelRouter(todos, { ...todoOptions({ preCreate }), populatePaths: [] }))
    .tool("stamp", {
      description: "Counts its runs.",
      input: z.object({ note: z.string() }),
      output: z.object({ run: z.number() }),
      handler: () => ({ run: ++toolRuns }),
    })
    .tool("flaky", {
      description: "Fails once per note, then answers.",
      input: z.object({ note: z.string() }),
      output: z.object({ calls: z.number() }),
      handler: (_ctx, input) => {
        const calls = (flakyCalls.get(input.note) ?? 0) + 1;
        flakyCalls.set(input.note, calls);
        if (calls === 1) throw new Error("the first call breaks");
        return { calls };
      },
    })
    .build();
}

interface Answer {
  status: number;
  replayed: string | null;
  body: { data?: PlainObject; code?: string };
}

async function post(url: string, token: string, body: unknown, key?: string): Promise<Answer> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Authorization: `Bearer ${token}`,
      ...(key ? { "Idempotency-Key": key } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    replayed: res.headers.get("idempotent-replayed"),
    body: text ? JSON.parse(text) : {},
  };
}

async function mcpClient(url: string, token: string, mode: "auto" | "legacy") {
  const client = new Client({ name: "idempotency-test", version: "1.0.0" }, {
    versionNegotiation: { mode },
  } as never);
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

type McpResult = {
  isError?: boolean;
  structuredContent?: { data?: PlainObject };
  content: Array<{ text?: string }>;
  _meta?: Record<string, unknown>;
};

const callWithKey = (
  client: Client,
  name: string,
  args: Record<string, unknown>,
  key: string,
): Promise<McpResult> =>
  client.callTool({ name, arguments: args, _meta: { idempotencyKey: key } }) as Promise<McpResult>;

const errorCode = (result: McpResult) => {
  const text = result.content[0]?.text ?? "";
  return JSON.parse(text.slice(text.indexOf("\n") + 1)).error.code as string;
};

describe("idempotent retries across two instances", () => {
  // The second instance's own connection (a pool of its own), as another process would have.
  const second = useConnection(database, 5);
  let one: Listening;
  let two: Listening;
  let token: string;
  let otherToken: string;
  let userId: string;

  before(async () => {
    const connection: Connection = second();
    const users = connection.model("User", User.schema) as unknown as typeof User;
    const todos = connection.model("Todo", Todo.schema) as unknown as typeof Todo;
    one = await listen(buildApp(User, Todo));
    two = await listen(buildApp(users, todos));
    const signUp = async (name: string) => {
      const res = await fetch(`${one.url}/auth/signup`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          email: `${name}-${Date.now()}@example.com`,
          password: "correct horse battery",
          name,
        }),
      });
      assert.equal(res.status, 201);
      return ((await res.json()) as { data: { token: string; userId: string } }).data;
    };
    const alice = await signUp("alice");
    token = alice.token;
    userId = alice.userId;
    otherToken = (await signUp("bob")).token;
  });
  after(async () => {
    await one?.close();
    await two?.close();
  });

  const count = (title: string) => Todo.countDocuments({ title, ownerId: userId });

  test("REST: a create retried on both instances at once makes one record; the retries replay it", async () => {
    const body = { title: "rest retry", priority: 2 };
    const answers = await Promise.all(
      [one, two, one, two].map((server) => post(`${server.url}/todos`, token, body, "rest-key-1")),
    );
    // Every answer is the create's (201) or, while it ran, 409; at least one is the create.
    for (const answer of answers)
      assert.ok([201, 409].includes(answer.status), JSON.stringify(answer));
    const created = answers.filter((a) => a.status === 201);
    assert.ok(created.length >= 1);
    assert.equal(await count("rest retry"), 1, "one record, whatever the instance");
    const ids = new Set(created.map((a) => a.body.data?.id));
    assert.equal(ids.size, 1, "every 201 names the one record");

    const retry = await post(
      `${two.url}/todos`,
      token,
      { priority: 2, title: "rest retry" },
      "rest-key-1",
    );
    assert.equal(retry.status, 201);
    assert.equal(retry.replayed, "true");
    assert.deepEqual(retry.body, created[0]?.body, "the first response, word for word");
    assert.equal(await count("rest retry"), 1);
  });

  test("REST: the same key with another body is 422, and nothing is written", async () => {
    await post(`${one.url}/todos`, token, { title: "first body" }, "rest-key-2");
    const other = await post(`${two.url}/todos`, token, { title: "second body" }, "rest-key-2");
    assert.equal(other.status, 422);
    assert.equal(other.body.code, "idempotency_key_reused");
    assert.equal(await count("second body"), 0);
  });

  test("REST: the same key while the first request runs is 409; once it answered, a retry replays", async () => {
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let open!: () => void;
    gate = { entered, open: new Promise<void>((resolve) => (open = resolve)) };
    const first = post(`${one.url}/todos`, token, { title: "slow rest" }, "rest-key-3");
    await inside;
    const during = await post(`${two.url}/todos`, token, { title: "slow rest" }, "rest-key-3");
    assert.equal(during.status, 409);
    assert.equal(during.body.code, "idempotency_key_in_use");
    open();
    gate = undefined;
    assert.equal((await first).status, 201);
    const after = await post(`${two.url}/todos`, token, { title: "slow rest" }, "rest-key-3");
    assert.equal(after.status, 201);
    assert.equal(after.replayed, "true");
    assert.equal(await count("slow rest"), 1);
  });

  test("REST: keys are per caller, a 4xx is replayed, and a request without a key runs each time", async () => {
    const mine = await post(`${one.url}/todos`, token, { title: "per caller" }, "shared-key");
    const theirs = await post(
      `${two.url}/todos`,
      otherToken,
      { title: "per caller" },
      "shared-key",
    );
    assert.equal(mine.status, 201);
    assert.equal(theirs.status, 201);
    assert.equal(theirs.replayed, null, "another caller's key is their own");
    assert.notEqual(mine.body.data?.id, theirs.body.data?.id);

    const invalid = await post(`${one.url}/todos`, token, { priority: 9 }, "bad-body");
    assert.equal(invalid.status, 400);
    const again = await post(`${two.url}/todos`, token, { priority: 9 }, "bad-body");
    assert.equal(again.status, 400);
    assert.equal(again.replayed, "true");

    await post(`${one.url}/todos`, token, { title: "no key" });
    await post(`${two.url}/todos`, token, { title: "no key" });
    assert.equal(await count("no key"), 2);
  });

  test("REST: a malformed key is 400 and runs nothing", async () => {
    const answer = await post(`${one.url}/todos`, token, { title: "bad key" }, "x".repeat(300));
    assert.equal(answer.status, 400);
    assert.equal(await count("bad key"), 0);
  });

  test("REST: a custom tool route runs once per key", async () => {
    const before = toolRuns;
    const first = await post(`${one.url}/tools/stamp`, token, { note: "a" }, "tool-key-1");
    const retry = await post(`${two.url}/tools/stamp`, token, { note: "a" }, "tool-key-1");
    assert.equal(first.status, 200);
    assert.equal(retry.replayed, "true");
    assert.deepEqual(retry.body, first.body);
    assert.equal(toolRuns, before + 1);
  });

  test("REST: a server fault frees the key, so the retry runs", async () => {
    const first = await post(`${one.url}/tools/flaky`, token, { note: "rest" }, "flaky-rest");
    assert.equal(first.status, 500);
    const retry = await post(`${two.url}/tools/flaky`, token, { note: "rest" }, "flaky-rest");
    assert.equal(retry.status, 200);
    assert.equal(retry.replayed, null);
    assert.deepEqual(retry.body, { data: { calls: 2 } });
    const again = await post(`${one.url}/tools/flaky`, token, { note: "rest" }, "flaky-rest");
    assert.equal(again.replayed, "true");
    assert.deepEqual(again.body, { data: { calls: 2 } });
  });

  test("MCP: a refusal is replayed as the same isError result; a server fault frees the key", async () => {
    const clients = await Promise.all([
      mcpClient(one.url, token, "auto"),
      mcpClient(two.url, token, "auto"),
    ]);
    try {
      const bad = { title: "bad mcp", priority: 9 };
      const refused = await callWithKey(clients[0] as Client, "todos_create", bad, "mcp-bad");
      assert.equal(refused.isError, true);
      const again = await callWithKey(clients[1] as Client, "todos_create", bad, "mcp-bad");
      assert.deepEqual(again, refused);
      assert.equal(await count("bad mcp"), 0);

      // An internal fault is a JSON-RPC error: the SDK client throws it.
      await assert.rejects(
        callWithKey(clients[0] as Client, "flaky", { note: "mcp" }, "flaky-mcp"),
      );
      const retry = await callWithKey(clients[1] as Client, "flaky", { note: "mcp" }, "flaky-mcp");
      assert.equal(retry.isError, undefined, JSON.stringify(retry));
      assert.deepEqual(retry.structuredContent, { data: { calls: 2 } });
      assert.equal(retry._meta?.idempotentReplayed, undefined, "it ran");
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  for (const mode of ["auto", "legacy"] as const) {
    test(`MCP (${mode} era): a create retried on both instances makes one record; other arguments are 422`, async () => {
      const clients = await Promise.all([
        mcpClient(one.url, token, mode),
        mcpClient(two.url, token, mode),
      ]);
      try {
        const key = `mcp-${mode}-1`;
        const args = { title: `mcp retry ${mode}` };
        const results = await Promise.all(
          [0, 1, 0, 1].map((i) => callWithKey(clients[i] as Client, "todos_create", args, key)),
        );
        for (const result of results) {
          if (result.isError) assert.equal(errorCode(result), "idempotency_key_in_use");
        }
        assert.equal(await count(args.title), 1);
        const retry = await callWithKey(clients[1] as Client, "todos_create", args, key);
        assert.equal(retry.isError, undefined, JSON.stringify(retry));
        assert.equal(retry._meta?.idempotentReplayed, true);
        assert.equal(await count(args.title), 1);

        const other = await callWithKey(
          clients[0] as Client,
          "todos_create",
          { title: "else" },
          key,
        );
        assert.equal(other.isError, true);
        assert.equal(errorCode(other), "idempotency_key_reused");
        assert.equal(await count("else"), 0);
      } finally {
        await Promise.all(clients.map((client) => client.close()));
      }
    });
  }

  test("MCP: the same key while the first call runs is an isError 409", async () => {
    const clients = await Promise.all([
      mcpClient(one.url, token, "auto"),
      mcpClient(two.url, token, "auto"),
    ]);
    try {
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      let open!: () => void;
      gate = { entered, open: new Promise<void>((resolve) => (open = resolve)) };
      const args = { title: "slow mcp" };
      const first = callWithKey(clients[0] as Client, "todos_create", args, "mcp-slow");
      await inside;
      const during = await callWithKey(clients[1] as Client, "todos_create", args, "mcp-slow");
      assert.equal(during.isError, true);
      assert.equal(errorCode(during), "idempotency_key_in_use");
      open();
      gate = undefined;
      assert.equal((await first).isError, undefined);
      assert.equal(await count("slow mcp"), 1);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  test("OpenAPI lists the header, the replay header and the 409/422 answers", async () => {
    const res = await fetch(`${one.url}/openapi.json`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const doc = (await res.json()) as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: Array<{ name: string }>; responses: Record<string, PlainObject> }
        >
      >;
      components: { responses: Record<string, { description: string }> };
    };
    for (const path of ["/todos", "/tools/stamp"]) {
      const post = doc.paths[path]?.post;
      assert.ok(post, path);
      assert.ok(
        post.parameters?.some((p) => p.name === "Idempotency-Key"),
        path,
      );
      assert.ok(post.responses["409"] && post.responses["422"], path);
      const success = post.responses["201"] ?? post.responses["200"];
      assert.ok((success?.headers as PlainObject | undefined)?.["Idempotent-Replayed"], path);
    }
    assert.match(
      doc.components.responses.UnprocessableContent?.description ?? "",
      /idempotency_key_reused/,
    );
    assert.match(doc.components.responses.Conflict?.description ?? "", /idempotency_key_in_use/);
  });
});
