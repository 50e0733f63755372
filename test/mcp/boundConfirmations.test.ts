/**
 * 2026-07-28 confirmations bound to their question (issue #33, item 11), with the SDK v2
 * client in manual multi-round-trip mode (`allowInputRequired`), so a test can hold the
 * question's `requestState` and replay it: an accepted answer counts only with the state the
 * server issued for this tool, these arguments and this caller, unexpired. Any other answer
 * asks again and writes nothing.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, mock, test } from "node:test";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { connectSdkClient, type Listening, listen } from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import { serverLog } from "../helpers/serverLog.js";

useTestDatabase("mcp_bound_confirmations");

interface Outcome {
  resultType?: string;
  inputRequests?: Record<string, { method: string; params: { message: string } }>;
  requestState?: string;
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: { data?: { deleted?: boolean } };
}

interface ManualClient {
  callTool(
    params: {
      name: string;
      arguments: Record<string, unknown>;
      inputResponses?: Record<string, unknown>;
      requestState?: string;
    },
    options: { allowInputRequired: true },
  ): Promise<Outcome>;
  close(): Promise<void>;
}

const ACCEPTED = { confirm: { action: "accept", content: { confirm: true } } };

/** Builds an app whose todo deletes are confirmed, over `secret` (two instances share one). */
const build = (secret: string, log: ReturnType<typeof serverLog>) => {
  const base = todoOptions();
  return new TerrenoApp({ userModel: User, auth: { jwt: { secret } }, ...log.appOptions })
    .register(modelRouter(Todo, { ...base, mcp: { ...base.mcp, confirm: ["delete"] } }))
    .build();
};

describe("2026-07-28 confirmations are bound to their question", () => {
  const log = serverLog();
  const app = build(JWT_SECRET, log);
  // A second instance of the same app (same secret): a state one issued, the other honours.
  const other = build(JWT_SECRET, log);
  let server: Listening;
  let otherServer: Listening;
  let alice: TestUser;
  let bob: TestUser;
  const clients: ManualClient[] = [];

  before(async () => {
    [server, otherServer] = await Promise.all([listen(app), listen(other)]);
    alice = await signUp(app, "alice");
    bob = await signUp(app, "bob");
  });
  afterEach(() => mock.timers.reset());
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all([server.close(), otherServer.close()]);
  });

  const connect = async (user: TestUser, url = server.url) => {
    const client = (await connectSdkClient("v2-auto", url, user.token, {
      answer: () => ({ action: "accept", content: { confirm: true } }),
      asked: [],
    })) as unknown as ManualClient;
    clients.push(client);
    return client;
  };

  const newTodo = async (user: TestUser, title: string) =>
    (
      await request(app)
        .post("/todos")
        .set("Authorization", `Bearer ${user.token}`)
        .send({ title })
        .expect(201)
    ).body.data.id as string;

  const exists = async (id: string) =>
    Boolean(await Todo.exists({ _id: id, deleted: { $ne: true } }));

  /** The question a first call gets, with the state it carries. */
  const ask = async (client: ManualClient, id: string) => {
    const asked = await client.callTool(
      { name: "todos_delete", arguments: { id } },
      { allowInputRequired: true },
    );
    assert.equal(asked.resultType, "input_required", JSON.stringify(asked));
    assert.equal(typeof asked.requestState, "string");
    assert.match(asked.inputRequests?.confirm?.params.message ?? "", new RegExp(`\\(id ${id}\\)$`));
    return asked.requestState as string;
  };

  const retry = (client: ManualClient, id: string, requestState?: string) =>
    client.callTool(
      {
        name: "todos_delete",
        arguments: { id },
        inputResponses: ACCEPTED,
        ...(requestState === undefined ? {} : { requestState }),
      },
      { allowInputRequired: true },
    );

  /** Asserts the call asked again, about `id`, with a fresh state. */
  const askedAgain = (outcome: Outcome, id: string, previous?: string) => {
    assert.equal(outcome.resultType, "input_required", JSON.stringify(outcome));
    assert.match(
      outcome.inputRequests?.confirm?.params.message ?? "",
      new RegExp(`\\(id ${id}\\)$`),
    );
    assert.equal(typeof outcome.requestState, "string");
    if (previous) assert.notEqual(outcome.requestState, previous);
  };

  test("the genuine flow deletes, on either instance", async () => {
    const client = await connect(alice);
    const id = await newTodo(alice, "genuine");
    const state = await ask(client, id);
    const done = await retry(await connect(alice, otherServer.url), id, state);
    assert.equal(done.isError, undefined, JSON.stringify(done));
    assert.equal(done.structuredContent?.data?.deleted, true);
    assert.equal(await exists(id), false);
    // The answer ran its call: replayed, on either instance, it asks again.
    askedAgain(await retry(client, id, state), id, state);
  });

  test("a confirmation for todo A replayed for todo B asks again; B still exists", async () => {
    const client = await connect(alice);
    const a = await newTodo(alice, "A");
    const b = await newTodo(alice, "B");
    const state = await ask(client, a);
    askedAgain(await retry(client, b, state), b, state);
    assert.equal(await exists(b), true);
    assert.equal(await exists(a), true);
  });

  test("a first call carrying an accepted answer is asked first; nothing is deleted", async () => {
    const client = await connect(alice);
    const id = await newTodo(alice, "pre-filled");
    askedAgain(await retry(client, id), id);
    askedAgain(await retry(client, id, "v1.made-up.state"), id);
    assert.equal(await exists(id), true);
  });

  test("another caller's state, for the very same arguments, asks again", async () => {
    const id = await newTodo(alice, "bob asked");
    const state = await ask(await connect(bob), id);
    askedAgain(await retry(await connect(alice), id, state), id, state);
    assert.equal(await exists(id), true);
  });

  test("an expired state asks again; nothing is deleted", async () => {
    const client = await connect(alice);
    const id = await newTodo(alice, "expired");
    mock.timers.enable({ apis: ["Date"], now: Date.now() });
    const state = await ask(client, id);
    mock.timers.tick(11 * 60_000);
    askedAgain(await retry(client, id, state), id, state);
    assert.equal(await exists(id), true);
  });

  test("no request above left a server fault in the log", () => {
    assert.deepEqual(log.serverErrors(), []);
  });
});

/**
 * An app without a JWT secret (its callers come from its own provider): the states' key is
 * kept in its database, created once, so two instances still honour each other's states.
 */
describe("2026-07-28 confirmation states without a JWT secret", () => {
  const log = serverLog();
  const users = new Map([
    ["dora", "64b000000000000000000d01"],
    ["ed", "64b000000000000000000e01"],
  ]);
  const build = () => {
    const base = todoOptions();
    return new TerrenoApp({
      userModel: User,
      auth: {
        providers: [
          {
            name: "header",
            resolve: async (headers) => {
              const id = users.get(String(headers["x-user"]));
              return id ? { id } : undefined;
            },
          },
        ],
      },
      ...log.appOptions,
    })
      .register(modelRouter(Todo, { ...base, mcp: { ...base.mcp, confirm: ["delete"] } }))
      .build();
  };
  const apps = [build(), build()];
  let servers: Listening[] = [];
  const clients: ManualClient[] = [];

  before(async () => {
    servers = await Promise.all(apps.map((app) => listen(app)));
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(servers.map((server) => server.close()));
  });

  const connect = async (user: string, instance: number) => {
    const client = new ClientV2(
      { name: "terreno-test-v2", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" }, capabilities: { elicitation: { form: {} } } },
    );
    await client.connect(
      new TransportV2(new URL("/mcp", servers[instance]?.url), {
        requestInit: { headers: { "X-User": user } },
      }),
    );
    clients.push(client as unknown as ManualClient);
    return client as unknown as ManualClient;
  };

  const newTodo = async (user: string, title: string) =>
    (await request(apps[0]).post("/todos").set("X-User", user).send({ title }).expect(201)).body
      .data.id as string;

  test("a state from one instance deletes on the other; replayed for another todo it asks again", async () => {
    const a = await newTodo("dora", "A");
    const b = await newTodo("dora", "B");
    const first = await (await connect("dora", 0)).callTool(
      { name: "todos_delete", arguments: { id: a } },
      { allowInputRequired: true },
    );
    assert.equal(first.resultType, "input_required", JSON.stringify(first));
    const state = first.requestState as string;
    const elsewhere = await connect("dora", 1);
    const replayed = await elsewhere.callTool(
      { name: "todos_delete", arguments: { id: b }, inputResponses: ACCEPTED, requestState: state },
      { allowInputRequired: true },
    );
    assert.equal(replayed.resultType, "input_required");
    assert.ok(await Todo.exists({ _id: b, deleted: { $ne: true } }));
    const done = await elsewhere.callTool(
      { name: "todos_delete", arguments: { id: a }, inputResponses: ACCEPTED, requestState: state },
      { allowInputRequired: true },
    );
    assert.equal(done.structuredContent?.data?.deleted, true, JSON.stringify(done));
    assert.equal(await Todo.exists({ _id: a, deleted: { $ne: true } }), null);
  });

  test("no request above left a server fault in the log", () => {
    assert.deepEqual(log.serverErrors(), []);
  });
});
