/**
 * Confirmations the client asks the person for (`mcp.confirm`): with the official SDK
 * clients of both eras, accepting runs the call, declining or cancelling writes nothing and
 * says so, and a client without elicitation calls the tool as before. On the 2025 era's wire:
 * the session a form-eliciting client gets, the question on the call's SSE stream, and an
 * answer heard only from the same session and caller.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { Express } from "express";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { signedUp, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  type ClientKind,
  connectSdkClient,
  type ElicitAnswer,
  type Listening,
  listen,
  useListening,
} from "../helpers/mcpClients.js";
import {
  createTodo,
  initialize,
  postInSession,
  sseMessages,
  toolCallMessage,
} from "../helpers/mcpWire.js";
import { Food, Todo, User } from "../helpers/models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import { serverLog } from "../helpers/serverLog.js";

useTestDatabase("mcp_confirm");

/** Every app below logs here; the last test checks no request left a server fault. */
const log = serverLog();

type Result = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: { data?: { deleted?: boolean } };
};

describe("confirmations through elicitation", () => {
  const base = todoOptions();
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    ...log.appOptions,
  })
    .register(
      modelRouter(Todo, {
        ...base,
        mcp: { ...base.mcp, confirm: ["delete"] },
      }),
    )
    .register(modelRouter(Food, foodOptions()))
    .build();
  const server = useListening(app);
  const [alice] = signedUp(app, "alice");

  const newTodo = (title: string) => createTodo(app, alice, title);

  async function deleteWith(kind: ClientKind, answer: ElicitAnswer | undefined) {
    const id = await newTodo(`delete me ${kind}`);
    const asked: unknown[] = [];
    const client = await connectSdkClient(
      kind,
      server.url,
      alice.token,
      answer ? { answer: () => answer, asked } : undefined,
    );
    try {
      const result = (await client.callTool({ name: "todos_delete", arguments: { id } })) as Result;
      return {
        id,
        result,
        asked,
        exists: Boolean(await Todo.exists({ _id: id, deleted: { $ne: true } })),
      };
    } finally {
      await client.close();
    }
  }

  for (const kind of ["v2-auto", "v2-legacy", "v1"] as const) {
    describe(kind, () => {
      test("accepting runs the call", async () => {
        const { result, asked, exists } = await deleteWith(kind, {
          action: "accept",
          content: { confirm: true },
        });
        assert.equal(result.isError, undefined, JSON.stringify(result));
        assert.equal(result.structuredContent?.data?.deleted, true);
        assert.equal(exists, false);
        assert.equal(asked.length, 1);
        const question = asked[0] as { message: string; requestedSchema: unknown };
        assert.match(question.message, /^Delete a Todo\? \(id [0-9a-f]{24}\)$/);
      });

      for (const answer of [
        { action: "decline" },
        { action: "cancel" },
        { action: "accept", content: { confirm: false } },
      ] as ElicitAnswer[]) {
        test(`${JSON.stringify(answer)} writes nothing and says so`, async () => {
          const { result, asked, exists } = await deleteWith(kind, answer);
          assert.equal(asked.length, 1);
          assert.equal(result.isError, true);
          assert.match(result.content[0]?.text ?? "", /^not_confirmed: /);
          assert.equal(exists, true);
        });
      }
    });
  }

  for (const kind of ["v2-auto", "v2-legacy", "v1"] as const) {
    test(`${kind} without elicitation calls the tool as before`, async () => {
      const { result, exists } = await deleteWith(kind, undefined);
      assert.equal(result.structuredContent?.data?.deleted, true, JSON.stringify(result));
      assert.equal(exists, false);
    });
  }

  test("tools that are not confirmed are never asked about, and annotations stay", async () => {
    const asked: unknown[] = [];
    const client = await connectSdkClient("v2-auto", server.url, alice.token, {
      answer: () => ({ action: "decline" }),
      asked,
    });
    try {
      const created = (await client.callTool({
        name: "todos_create",
        arguments: { title: "no question" },
      })) as Result;
      assert.equal(created.isError, undefined);
      assert.equal(asked.length, 0);
      // A bad id is refused as before, without a question.
      const bad = (await client.callTool({
        name: "todos_delete",
        arguments: { id: "nope" },
      })) as Result;
      assert.equal(bad.isError, true);
      assert.equal(asked.length, 0);
      const { tools } = (await (
        client as unknown as { listTools(): Promise<{ tools: Array<Record<string, unknown>> }> }
      ).listTools()) as { tools: Array<{ name: string; annotations?: Record<string, unknown> }> };
      const del = tools.find((tool) => tool.name === "todos_delete");
      assert.equal(del?.annotations?.destructiveHint, true);
    } finally {
      await client.close();
    }
  });
});

describe("2025-era confirmations on the wire", () => {
  const base = todoOptions();
  const build = (confirm: boolean) =>
    new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } }, ...log.appOptions })
      .register(
        modelRouter(Todo, {
          ...base,
          mcp: { ...base.mcp, ...(confirm ? { confirm: ["delete" as const] } : {}) },
        }),
      )
      .build();
  const app = build(true);
  const server = useListening(app);
  const [alice, bob] = signedUp(app, "alice", "bob");

  test("only a form-eliciting client of an app with confirmations gets a session", async () => {
    const asking = await initialize(app, alice, { elicitation: {} });
    assert.match(asking.headers["mcp-session-id"] ?? "", /^[\x21-\x7e]+$/);
    const silent = await initialize(app, alice, {});
    assert.equal(silent.headers["mcp-session-id"], undefined);
    const urlOnly = await initialize(app, alice, { elicitation: { url: {} } });
    assert.equal(urlOnly.headers["mcp-session-id"], undefined);
    const plain = await initialize(build(false), alice, { elicitation: {} });
    assert.equal(plain.headers["mcp-session-id"], undefined);
  });

  const post = (user: TestUser, session: string, body: unknown) =>
    postInSession(server.url, user, session, body);

  test("the question streams on the call; only the same session and caller answer it", async () => {
    const session = (await initialize(app, alice, { elicitation: {} })).headers[
      "mcp-session-id"
    ] as string;
    const id = await createTodo(app, alice, "wire delete");
    const call = await post(alice, session, toolCallMessage(7, "todos_delete", { id }));
    assert.equal(call.status, 200);
    assert.match(call.headers.get("content-type") ?? "", /text\/event-stream/);
    const next = sseMessages(call);
    const question = (await next()) as {
      id: string;
      method: string;
      params: { message: string; requestedSchema: unknown };
    };
    assert.equal(question.method, "elicitation/create");
    assert.match(question.params.message, /^Delete a Todo\? \(id [0-9a-f]{24}\)$/);
    const answer = {
      jsonrpc: "2.0",
      id: question.id,
      result: { action: "accept", content: { confirm: true } },
    };
    // Another caller in the same session, or the same caller in another session, is not heard:
    // the POST is refused (nothing is kept of it), and the record is still there.
    const other = (await initialize(app, alice, { elicitation: {} })).headers[
      "mcp-session-id"
    ] as string;
    assert.equal((await post(bob, session, answer)).status, 400);
    assert.equal((await post(alice, other, answer)).status, 400);
    assert.ok(await Todo.exists({ _id: id, deleted: { $ne: true } }));
    // The person's own answer runs the call, whose result ends the stream.
    assert.equal((await post(alice, session, answer)).status, 202);
    const result = (await next()) as {
      id: number;
      result: { structuredContent?: { data?: { deleted?: boolean } } };
    };
    assert.equal(result.id, 7);
    assert.equal(result.result.structuredContent?.data?.deleted, true);
    assert.equal(await Todo.exists({ _id: id, deleted: { $ne: true } }), null);
    // The question was answered once: the same answer again is refused.
    assert.equal((await post(alice, session, answer)).status, 400);
  });
});

/**
 * Two instances behind a balancer that sends each POST to the other instance than the last
 * one: the call (and its question) lands on one, the client's answer on the other.
 */
describe("2025-era confirmations across two instances", () => {
  const base = todoOptions();
  const build = () =>
    new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } }, ...log.appOptions })
      .register(modelRouter(Todo, { ...base, mcp: { ...base.mcp, confirm: ["delete"] } }))
      .build();
  const instances = [build(), build()];
  let upstreams: Listening[] = [];
  let balancer: Server;
  let balancerUrl: string;
  let alice: TestUser;
  /** For each POST: which instance served it, and what it carried. */
  const served: Array<{ instance: number; body: string }> = [];

  before(async () => {
    upstreams = await Promise.all(instances.map((instance) => listen(instance)));
    let next = 0;
    balancer = createServer((req, res) => {
      forward(req, res).catch(() => res.destroy());
    });
    const forward = async (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const instance = req.method === "POST" ? next++ % 2 : 0;
      if (req.method === "POST") served.push({ instance, body: body.toString() });
      const upstream = await fetch(`${upstreams[instance]?.url}${req.url}`, {
        method: req.method,
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(
            (entry): entry is [string, string] =>
              typeof entry[1] === "string" && entry[0] !== "host" && entry[0] !== "content-length",
          ),
        ),
        ...(req.method === "GET" || req.method === "HEAD" ? {} : { body }),
      });
      res.writeHead(upstream.status, Object.fromEntries(upstream.headers));
      if (!upstream.body) return res.end();
      for await (const chunk of upstream.body) res.write(chunk);
      res.end();
    };
    await new Promise<void>((resolve) => balancer.listen(0, "127.0.0.1", resolve));
    balancerUrl = `http://127.0.0.1:${(balancer.address() as AddressInfo).port}`;
    alice = await signUp(instances[0] as Express, "alice");
  });
  after(async () => {
    balancer.closeAllConnections();
    await new Promise((resolve) => balancer.close(resolve));
    await Promise.all(upstreams.map((upstream) => upstream.close()));
  });

  for (const kind of ["v1", "v2-legacy"] as const) {
    test(`${kind}: the answer heard by the other instance runs the call; a decline there writes nothing`, {
      timeout: 60_000,
    }, async () => {
      for (const [answer, runs] of [
        [{ action: "accept", content: { confirm: true } }, true],
        [{ action: "decline" }, false],
      ] as Array<[ElicitAnswer, boolean]>) {
        const id = await createTodo(instances[1] as Express, alice, `across ${kind}`);
        const asked: unknown[] = [];
        const client = await connectSdkClient(kind, balancerUrl, alice.token, {
          answer: () => answer,
          asked,
        });
        try {
          served.length = 0;
          const result = (await client.callTool({
            name: "todos_delete",
            arguments: { id },
          })) as Result;
          assert.equal(asked.length, 1);
          const call = served.find((post) => post.body.includes('"tools/call"'));
          const reply = served.find((post) => /"id":"ask-/.test(post.body));
          assert.ok(call && reply, JSON.stringify(served));
          assert.notEqual(reply.instance, call.instance, "the answer went to the other instance");
          assert.equal(result.isError, runs ? undefined : true, JSON.stringify(result));
          const exists = Boolean(await Todo.exists({ _id: id, deleted: { $ne: true } }));
          assert.equal(exists, !runs);
        } finally {
          await client.close();
        }
      }
    });
  }
});

test("no confirmation above left a server fault in the log", () => {
  assert.deepEqual(log.serverErrors(), []);
});
