// Graceful shutdown under load (issue 7). Threat: a deploy or scale-down sends SIGTERM while
// requests are running. In-flight requests must finish (200), new connections must be refused
// (or answered 503 shutting_down), and the process must exit 0.

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "../../src/testing/ferretdb.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const FIXTURE = path.join(root, "test", "faults", "fixtures", "server.ts");
const IN_FLIGHT = 8;

interface Child {
  process: ChildProcess;
  url: string;
  lines: string[];
  /** Resolves when `count` stdout lines equal `line`. */
  waitFor(line: string, count?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

async function startServer(uri: string): Promise<Child> {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE], {
    cwd: root,
    env: { ...process.env, MONGODB_URI: uri },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let stderr = "";
  let buffered = "";
  const waiters: Array<() => void> = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    const parts = buffered.split("\n");
    buffered = parts.pop() ?? "";
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-8000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve({ code, signal });
      for (const wake of waiters.splice(0)) wake();
    });
  });
  let exitedYet = false;
  void exited.then(() => {
    exitedYet = true;
  });
  const waitFor = async (line: string, count = 1): Promise<void> => {
    while (lines.filter((l) => l === line || l.startsWith(`${line} `)).length < count) {
      if (exitedYet) {
        throw new Error(`the server exited before printing ${line}:\n${stderr}`);
      }
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  await waitFor("LISTENING");
  const url = lines.find((l) => l.startsWith("LISTENING "))?.slice("LISTENING ".length) ?? "";
  return { process: child, url, lines, waitFor, exited, output: () => stderr };
}

interface HttpOutcome {
  status?: number;
  body?: string;
  error?: string;
}

/** One request on its own new connection (no keep-alive pool). */
function get(url: string): Promise<HttpOutcome> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode, body }));
      res.on("error", (error: NodeJS.ErrnoException) =>
        resolve({ error: error.code ?? error.message }),
      );
    });
    req.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message }),
    );
  });
}

/** A raw socket, so a second request can be written on a connection that is still busy. */
function rawConnection(url: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let received = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    received += chunk;
  });
  const closed = new Promise<void>((resolve) => {
    socket.on("close", () => resolve());
    socket.on("error", () => resolve());
  });
  const connected = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return {
    connected,
    send: (pathname: string) =>
      socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`),
    closed,
    statuses: () => [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1])),
    received: () => received,
    destroy: () => socket.destroy(),
  };
}

describe("SIGTERM under load", () => {
  let database: TestDatabase;
  let child: Child | undefined;

  before(async () => {
    database = await createTestDatabase("shutdown");
  });
  after(async () => {
    if (child && child.process.exitCode === null) child.process.kill("SIGKILL");
    await database.close();
  });

  test("threat: SIGTERM mid-request — in-flight requests finish, new connections are refused, exit 0", async () => {
    child = await startServer(database.uri);
    const { url } = child;
    assert.equal((await get(`${url}/slow?ms=1`)).status, 200, "the fixture serves requests");
    const startedBefore = child.lines.filter((l) => l === "IN_FLIGHT").length;

    // Requests in flight, each on its own connection, plus one busy raw connection that will
    // carry a second request after the drain has begun.
    const inFlight = Array.from({ length: IN_FLIGHT }, () => get(`${url}/slow?ms=800`));
    const pipelined = rawConnection(url);
    await pipelined.connected;
    pipelined.send("/slow?ms=800");
    await child.waitFor("IN_FLIGHT", startedBefore + IN_FLIGHT + 1);

    child.process.kill("SIGTERM");
    await child.waitFor("DRAINING");

    // New connections: refused, or (if one raced in) told the server is shutting down.
    const late = await Promise.all(Array.from({ length: 3 }, () => get(`${url}/todos`)));
    for (const outcome of late) {
      if (outcome.error) {
        assert.equal(outcome.error, "ECONNREFUSED", JSON.stringify(outcome));
      } else {
        assert.equal(outcome.status, 503, JSON.stringify(outcome));
        assert.equal(JSON.parse(outcome.body ?? "{}").code, "shutting_down");
      }
    }

    // A new request on a connection that is still busy is answered 503 shutting_down.
    pipelined.send("/slow?ms=1");

    const finished = await Promise.all(inFlight);
    for (const outcome of finished) {
      assert.equal(outcome.status, 200, JSON.stringify(outcome));
      assert.equal(JSON.parse(outcome.body ?? "{}").ok, true, "the database was still usable");
    }
    await pipelined.closed;
    assert.deepEqual(pipelined.statuses(), [200, 503], pipelined.received());
    assert.match(pipelined.received(), /"code":"shutting_down"/);

    const exit = await child.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, child.output());
  });
});
