// Database outage (issue 7). Threat: the database goes away in the middle of a run. The app must
// fail clearly (REST 503 `database_unavailable`, MCP isError `database_unavailable`, never a hang
// or a 500), recover by itself when the database is back, and lose no write it acknowledged.
// Each test starts its own FerretDB and app, so it runs alone and in any order; every wait polls
// observable state (what the API answers) a bounded number of times, and nothing sleeps.

import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";
import { inspect } from "node:util";
import mongoose from "mongoose";
import { connectDatabase } from "../../src/app/database.js";
import {
  type FerretDBServer,
  startFerretDB,
  withDatabaseName,
} from "../../src/testing/ferretdb.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import {
  connectClient,
  type Listening,
  listen,
  type McpTestClient,
  type ToolCallOutcome,
  toolError,
} from "../helpers/mcpClients.js";
import { Todo } from "../helpers/models.js";
import { buildRestApp } from "../helpers/restApp.js";

/** Polls per wait. A poll during the outage waits for server selection (2 s), so none spins. */
const MAX_POLLS = 60;
/** A hang fails the test instead of stalling the run. */
const TEST_OPTIONS = { timeout: 120_000 };

interface HttpResult {
  status: number;
  body: Record<string, unknown>;
}

interface Rig {
  db: FerretDBServer;
  server: Listening;
  alice: TestUser;
  client: McpTestClient;
  call(method: string, path: string, body?: unknown): Promise<HttpResult>;
  /** A raw JSON-RPC request: the HTTP status and the body. */
  rpc(method: string, params?: Record<string, unknown>): Promise<HttpResult>;
}

async function openRig(): Promise<Rig> {
  const db = await startFerretDB();
  await connectDatabase(withDatabaseName(db.uri, "outage"));
  await Promise.all(Object.values(mongoose.models).map((model) => model.init()));
  const app = buildRestApp();
  const server = await listen(app);
  const alice = await signUp(app, "alice");
  const client = await connectClient("v2-auto", server.url, alice.token);
  async function call(method: string, path: string, body?: unknown): Promise<HttpResult> {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${alice.token}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : {} };
  }
  const rpc = (method: string, params?: Record<string, unknown>) =>
    call("POST", "/mcp", { jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) });
  return { db, server, alice, client, call, rpc };
}

async function closeRig(rig: Rig | undefined): Promise<void> {
  await rig?.client.close();
  await rig?.server.close();
  await mongoose.disconnect();
  await rig?.db.stop();
}

/** Calls `probe` until `done` holds for its answer, at most MAX_POLLS times; the last answer. */
async function pollUntil<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
): Promise<T> {
  let last: T | undefined;
  for (let poll = 1; poll <= MAX_POLLS; poll += 1) {
    last = await probe();
    if (done(last)) return last;
  }
  assert.fail(`${what}: not after ${MAX_POLLS} polls; last answer ${inspect(last, { depth: 4 })}`);
}

const isUnavailable = (result: HttpResult) =>
  result.status === 503 && result.body.code === "database_unavailable";

/** Until REST answers 503 database_unavailable: the driver has noticed the outage. */
const untilRestNoticesOutage = (rig: Rig) =>
  pollUntil("REST answers database_unavailable", () => rig.call("GET", "/todos"), isUnavailable);

/** Until REST lists again: the app has reconnected by itself. */
const untilRestRecovers = (rig: Rig) =>
  pollUntil(
    "REST lists todos again",
    () => rig.call("GET", "/todos?limit=1"),
    (result) => result.status === 200,
  );

function assertRestUnavailable(name: string, result: HttpResult): void {
  assert.equal(result.status, 503, `${name}: ${JSON.stringify(result)}`);
  assert.equal(result.body.code, "database_unavailable", name);
  assert.equal(result.body.status, 503, name);
  assert.match(String(result.body.detail), /database is unavailable/i, name);
}

function assertToolUnavailable(name: string, result: ToolCallOutcome): void {
  assert.equal(result.isError, true, `${name}: ${JSON.stringify(result)}`);
  assert.equal(toolError(result).code, "database_unavailable", name);
  assert.match(result.content[0].text ?? "", /^database_unavailable: /, name);
}

/** Collects what the server logs while `run` runs; shows any fault the core did not recognise. */
async function capturingErrors<T>(run: () => Promise<T>): Promise<{ value: T; logged: unknown[] }> {
  const originalError = console.error;
  const logged: unknown[] = [];
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    return { value: await run(), logged };
  } finally {
    console.error = originalError;
    for (const entry of logged) {
      const text = inspect(entry, { depth: 4 });
      if (/\(internal\)/.test(text)) process.stderr.write(`outage test: ${text.slice(0, 3000)}\n`);
    }
  }
}

// --- A writer that runs beside the outage: acknowledged writes are remembered, failures kept. ---

interface Written {
  id: string;
  title: string;
}

interface Refused {
  surface: "rest" | "mcp";
  status: number;
  code: unknown;
}

/** Writes back to back (REST and MCP in turn) until stopped or MAX_WRITES; no pauses. */
class Writer {
  static readonly MAX_WRITES = 3000;
  readonly acknowledged: Written[] = [];
  readonly refused: Refused[] = [];
  private stopped = false;
  private waiters: Array<{ ready: () => boolean; resolve: () => void }> = [];
  private readonly done: Promise<void>;

  constructor(private readonly rig: Rig) {
    this.done = this.run();
  }

  /** Resolves once `ready()` holds after some write; fails if the writer ends first. */
  until(what: string, ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ ready, resolve });
      this.done.then(() => reject(new Error(`the writer ended before ${what}`)), reject);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }

  private async run(): Promise<void> {
    for (let i = 0; !this.stopped && i < Writer.MAX_WRITES; i += 1) {
      await this.writeOnce(i);
      this.waiters = this.waiters.filter((waiter) => {
        if (!waiter.ready()) return true;
        waiter.resolve();
        return false;
      });
    }
  }

  private async writeOnce(i: number): Promise<void> {
    const title = `write-${i}`;
    if (i % 2 === 0) {
      const result = await this.rig.call("POST", "/todos", { title });
      if (result.status === 201) {
        this.acknowledged.push({ id: (result.body.data as { id: string }).id, title });
      } else {
        this.refused.push({ surface: "rest", status: result.status, code: result.body.code });
      }
      return;
    }
    const raw = await this.rig.rpc("tools/call", { name: "todos_create", arguments: { title } });
    const result = raw.body.result as ToolCallOutcome | undefined;
    const data = (result?.structuredContent as { data?: { id: string } } | undefined)?.data;
    if (raw.status === 200 && result && !result.isError && data) {
      this.acknowledged.push({ id: data.id, title });
    } else {
      const code = result?.isError ? toolError(result).code : raw.body.error;
      this.refused.push({ surface: "mcp", status: raw.status, code });
    }
  }
}

describe("database outage: fail clearly, recover, keep acknowledged writes", () => {
  let rig: Rig | undefined;
  beforeEach(async () => {
    rig = await openRig();
  });
  afterEach(async () => {
    await closeRig(rig);
    rig = undefined;
  });
  const current = (): Rig => {
    assert.ok(rig, "the rig is open");
    return rig;
  };

  test(
    "threat: outage mid-run — while the database is down, REST answers 503 and MCP isError database_unavailable",
    TEST_OPTIONS,
    async () => {
      const r = current();
      const created = await r.call("POST", "/todos", { title: "before the outage" });
      assert.equal(created.status, 201, JSON.stringify(created));
      const id = (created.body.data as { id: string }).id;

      const { logged } = await capturingErrors(() =>
        r.db.restart({
          whileDown: async () => {
            await untilRestNoticesOutage(r);
            const [list, read, create, mcpList, mcpCreate, rawCall, toolsList] = await Promise.all([
              r.call("GET", "/todos"),
              r.call("GET", `/todos/${id}`),
              r.call("POST", "/todos", { title: "during the outage" }),
              r.client.callTool("todos_list", {}),
              r.client.callTool("todos_create", { title: "during the outage" }),
              r.rpc("tools/call", { name: "todos_read", arguments: { id } }),
              r.rpc("tools/list"),
            ]);
            assertRestUnavailable("REST list", list);
            assertRestUnavailable("REST read", read);
            assertRestUnavailable("REST create", create);
            assertToolUnavailable("MCP list (client)", mcpList);
            assertToolUnavailable("MCP create (client)", mcpCreate);
            // Over raw JSON-RPC the tool result carries it, with HTTP 200.
            assert.equal(rawCall.status, 200, JSON.stringify(rawCall));
            assertToolUnavailable("MCP read (raw)", rawCall.body.result as ToolCallOutcome);
            // No tool result to carry it: a JSON-RPC server error, never -32603 or a REST body.
            const listError = toolsList.body.error as { code?: number; message?: string };
            assert.equal(listError?.code, -32000, JSON.stringify(toolsList));
            assert.match(String(listError.message), /^database_unavailable: /);
          },
        }),
      );
      assert.ok(logged.length > 0, "the outage is logged server-side");
      const stored = await Todo.find({ title: "during the outage" }).lean();
      assert.deepEqual(stored, [], "no write refused during the outage was stored");
    },
  );

  test(
    "threat: outage mid-run — once the database is back, the app recovers without a restart of its own",
    TEST_OPTIONS,
    async () => {
      const r = current();
      await capturingErrors(() =>
        r.db.restart({ whileDown: () => untilRestNoticesOutage(r).then() }),
      );
      await untilRestRecovers(r);
      const viaClient = await r.client.callTool("todos_list", {});
      assert.equal(viaClient.isError, undefined, JSON.stringify(viaClient));
      const created = await r.call("POST", "/todos", { title: "after the outage" });
      assert.equal(created.status, 201, JSON.stringify(created));
      const viaTool = await r.client.callTool("todos_create", {
        title: "after the outage, by tool",
      });
      assert.equal(viaTool.isError, undefined, JSON.stringify(viaTool));
    },
  );

  test(
    "threat: outage mid-run — every write acknowledged before and after is stored; every refused one was database_unavailable",
    TEST_OPTIONS,
    async () => {
      const r = current();
      const writer = new Writer(r);
      try {
        await writer.until("10 writes before the outage", () => writer.acknowledged.length >= 10);
        assert.equal(
          writer.refused.length,
          0,
          `refused while up: ${JSON.stringify(writer.refused)}`,
        );
        const before = writer.acknowledged.length;
        await capturingErrors(() =>
          r.db.restart({
            // Stay down until the writer has run into the outage on both surfaces.
            whileDown: () =>
              writer.until("the writer is refused on REST and MCP", () =>
                ["rest", "mcp"].every((surface) =>
                  writer.refused.some((refused) => refused.surface === surface),
                ),
              ),
          }),
        );
        const afterOutage = writer.acknowledged.length;
        await writer.until(
          "10 writes after the outage",
          () => writer.acknowledged.length >= afterOutage + 10,
        );
        assert.ok(writer.acknowledged.length > before);
      } finally {
        await writer.stop();
      }
      const ids = writer.acknowledged.map((write) => write.id);
      const stored = await Todo.find({ _id: { $in: ids } }).lean<
        Array<{ _id: unknown; title: string }>
      >();
      const byId = new Map(stored.map((doc) => [String(doc._id), doc.title]));
      for (const write of writer.acknowledged) {
        assert.equal(
          byId.get(write.id),
          write.title,
          `acknowledged write ${write.title} is missing`,
        );
      }
      assert.ok(writer.refused.length > 0, "the writer ran into the outage");
      for (const refused of writer.refused) {
        const expected = refused.surface === "rest" ? 503 : 200;
        assert.equal(refused.status, expected, JSON.stringify(refused));
        assert.equal(refused.code, "database_unavailable", JSON.stringify(refused));
      }
    },
  );
});
