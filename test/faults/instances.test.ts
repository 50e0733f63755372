// Many instances (issue 13, item 5). Threat: the app runs as several processes behind a load
// balancer, and a client's requests land on any of them. Two real server processes (the
// fixture, spawned twice) share nothing but the database: the rate limit must be one limit
// (the `"mongo"` store), refresh-token reuse must be detected whichever process sees the token
// first, and a write acknowledged by one process must be readable through the other.

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "../../src/testing/ferretdb.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const FIXTURE = path.join(root, "test", "faults", "fixtures", "instance.ts");
const ACCEPT = "application/json, text/event-stream";
/** The fixture's write and tool-call windows: POINTS per 60 s per caller. */
const POINTS = 4;

interface Instance {
  name: string;
  process: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  output(): string;
}

async function startInstance(name: string, uri: string): Promise<Instance> {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE], {
    cwd: root,
    env: { ...process.env, MONGODB_URI: uri, INSTANCE_POINTS: String(POINTS) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-8000);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${stderr}`)), 60_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const match = /^LISTENING (\S+)$/m.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before listening:\n${stderr}`));
    });
  });
  return { name, process: child, url, exited, output: () => stderr };
}

async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (!instance || instance.process.exitCode !== null || instance.process.signalCode) return;
  instance.process.kill("SIGTERM");
  const stopped = await Promise.race([instance.exited.then(() => true), sleep(10_000, false)]);
  if (!stopped) {
    instance.process.kill("SIGKILL");
    await instance.exited;
  }
}

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & {
    data?: Record<string, unknown>;
    code?: string;
    detail?: string;
  };
}

async function call(
  instance: Instance,
  method: string,
  pathname: string,
  body?: unknown,
  token?: string,
): Promise<Answer> {
  const headers: Record<string, string> = { Accept: ACCEPT };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(new URL(pathname, instance.url), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : {} };
}

interface Session {
  token: string;
  refreshToken: string;
  userId: string;
}

let users = 0;
async function signUp(instance: Instance, name: string): Promise<Session> {
  users += 1;
  const res = await call(instance, "POST", "/auth/signup", {
    email: `${name}${users}-${Date.now()}@example.com`,
    password: "correct horse battery",
    name,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as unknown as Session;
}

function toolCall(instance: Instance, token: string, name: string, args: unknown, id = 1) {
  return call(
    instance,
    "POST",
    "/mcp",
    { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } },
    token,
  );
}

describe("two instances on one database", () => {
  let database: TestDatabase;
  let a: Instance | undefined;
  let b: Instance | undefined;

  before(async () => {
    database = await createTestDatabase("instances");
    // One after the other: both build the same indexes on a fresh database.
    a = await startInstance("A", database.uri);
    b = await startInstance("B", database.uri);
  });

  after(async () => {
    await Promise.all([stopInstance(a), stopInstance(b)]);
    await database?.close();
  });

  const both = (): [Instance, Instance] => {
    assert.ok(a && b, "both instances are up");
    return [a, b];
  };

  test("they are two processes with no memory in common", () => {
    const [first, second] = both();
    assert.notEqual(first.process.pid, second.process.pid);
    assert.notEqual(first.url, second.url);
  });

  test("threat: limits per process — REST writes spent on A are refused on B (429 rate_limited)", async () => {
    const [first, second] = both();
    const user = await signUp(first, "writer");
    for (let i = 0; i < POINTS; i += 1) {
      const created = await call(first, "POST", "/todos", { title: `on A ${i}` }, user.token);
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    const refused = await call(second, "POST", "/todos", { title: "on B" }, user.token);
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "rate_limited");
    assert.match(refused.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
    // Reads are not limited, and the refused write was not made.
    const list = await call(second, "GET", "/todos?limit=25", undefined, user.token);
    assert.equal(list.status, 200);
    assert.equal((list.body.data as unknown as unknown[]).length, POINTS);
  });

  test("threat: limits per process — MCP tool calls split across A and B count against one limit", async () => {
    const [first, second] = both();
    const user = await signUp(second, "caller");
    for (let i = 0; i < POINTS; i += 1) {
      const instance = i % 2 === 0 ? first : second;
      const res = await toolCall(instance, user.token, "todos_list", {}, i + 1);
      assert.equal(res.status, 200, `${instance.name}: ${JSON.stringify(res.body)}`);
      assert.equal((res.body.result as { isError?: boolean }).isError, undefined);
    }
    for (const instance of [first, second]) {
      const refused = await toolCall(instance, user.token, "todos_list", {}, 99);
      assert.equal(refused.status, 429, `${instance.name}: ${JSON.stringify(refused.body)}`);
      const error = refused.body.error as { code: number; data: { error: { code: string } } };
      assert.equal(error.data.error.code, "rate_limited");
      assert.equal(refused.body.id, 99);
    }
  });

  test("threat: refresh-token replay on another instance — R0 spent on A, replayed on B: 401, and R1 is dead too", async () => {
    const [first, second] = both();
    const user = await signUp(first, "rotate");
    const rotated = await call(first, "POST", "/auth/refresh_token", {
      refreshToken: user.refreshToken,
    });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const r1 = rotated.body.data?.refreshToken as string;
    assert.ok(r1 && r1 !== user.refreshToken);

    const replay = await call(second, "POST", "/auth/refresh_token", {
      refreshToken: user.refreshToken,
    });
    assert.equal(replay.status, 401, JSON.stringify(replay.body));
    assert.equal(replay.body.code, "unauthenticated");
    assert.match(String(replay.body.detail), /already used/);

    // The family was revoked in the database, so R1 is refused on either instance.
    for (const instance of [first, second]) {
      const dead = await call(instance, "POST", "/auth/refresh_token", { refreshToken: r1 });
      assert.equal(dead.status, 401, `${instance.name}: ${JSON.stringify(dead.body)}`);
      assert.match(String(dead.body.detail), /revoked/);
    }
  });

  test("threat: a write lost between instances — what A acknowledges, B reads at once (REST and MCP, both ways)", async () => {
    const [first, second] = both();
    const user = await signUp(first, "writer2");
    const created = await call(first, "POST", "/todos", { title: "written on A" }, user.token);
    assert.equal(created.status, 201);
    const id = created.body.data?.id as string;
    const readOnB = await call(second, "GET", `/todos/${id}`, undefined, user.token);
    assert.equal(readOnB.status, 200, JSON.stringify(readOnB.body));
    assert.equal(readOnB.body.data?.title, "written on A");

    const patched = await call(second, "PATCH", `/todos/${id}`, { completed: true }, user.token);
    assert.equal(patched.status, 200);
    const readOnA = await toolCall(first, user.token, "todos_read", { id });
    const data = (readOnA.body.result as { structuredContent: { data: Record<string, unknown> } })
      .structuredContent.data;
    assert.equal(data.completed, true);

    const viaMcp = await toolCall(second, user.token, "todos_create", { title: "written on B" });
    const createdOnB = (viaMcp.body.result as { structuredContent: { data: { id: string } } })
      .structuredContent.data;
    const readBack = await call(first, "GET", `/todos/${createdOnB.id}`, undefined, user.token);
    assert.equal(readBack.status, 200);
    assert.equal(readBack.body.data?.title, "written on B");
  });

  test("both instances stop cleanly (SIGTERM → exit 0)", async () => {
    const [first, second] = both();
    await Promise.all([stopInstance(first), stopInstance(second)]);
    assert.equal(first.process.exitCode, 0, first.output());
    assert.equal(second.process.exitCode, 0, second.output());
  });
});
