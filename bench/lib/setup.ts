/**
 * Setup shared by the harnesses (run.ts, mcpOverhead.ts): callers and seeded todos through the
 * REST API, the todos_list request arms and their answer checks, and baseline src/ trees.
 */
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Arm } from "./compare.js";
import type { HttpRequestSpec } from "./load.js";
import { send, toolPayload } from "./mcp.js";

async function postJson(url: string, body: unknown, token?: string): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

export interface Caller {
  token: string;
  userId: string;
}

export async function signUp(base: string, name: string): Promise<Caller> {
  const email = `${name.toLowerCase().replace(/\W+/g, ".")}.${randomBytes(3).toString("hex")}@bench.example`;
  const json = (await postJson(`${base}/auth/signup`, {
    email,
    password: "correct horse battery staple",
    name,
  })) as { data: Caller };
  return json.data;
}

export async function seedTodos(base: string, caller: Caller, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        next += 1;
        const i = next;
        await postJson(
          `${base}/todos`,
          {
            title: `Seeded todo ${String(i).padStart(3, "0")}`,
            completed: i % 3 === 0,
            tags: i % 2 === 0 ? ["home", "errand"] : ["work"],
            dueDate: new Date(Date.UTC(2026, 0, 1 + (i % 300))).toISOString(),
          },
          caller.token,
        );
      }
    }),
  );
}

export function restList(base: string, token: string, limit = 20): HttpRequestSpec {
  return {
    url: `${base}/todos?limit=${limit}`,
    method: "GET",
    headers: { authorization: `Bearer ${token}` },
  };
}

/** A list answer: `limit` todos, the owner populated with its name. */
export function checkList(payload: unknown, limit: number, where: string): void {
  const data = (payload as { data?: unknown[] })?.data;
  if (!Array.isArray(data) || data.length !== limit) {
    throw new Error(
      `${where}: expected ${limit} todos, got ${JSON.stringify(payload).slice(0, 300)}`,
    );
  }
  const owner = (data[0] as { ownerId?: { name?: unknown } }).ownerId;
  if (typeof owner?.name !== "string") {
    throw new Error(`${where}: owner not populated: ${JSON.stringify(data[0]).slice(0, 300)}`);
  }
}

/** An arm whose `verify` sends `spec` once and checks the list `payloadOf` finds in its answer. */
function listArm(
  name: string,
  spec: HttpRequestSpec,
  serverPid: number | undefined,
  limit: number,
  payloadOf: (json: unknown) => unknown,
): Arm {
  return {
    name,
    spec,
    serverPid,
    verify: async () => {
      const response = await send(spec);
      if (response.status !== 200) throw new Error(`${name}: HTTP ${response.status}`);
      checkList(payloadOf(response.json), limit, name);
    },
  };
}

export function restListArm(
  name: string,
  spec: HttpRequestSpec,
  serverPid?: number,
  limit = 20,
): Arm {
  return listArm(name, spec, serverPid, limit, (json) => json);
}

export function mcpListArm(
  name: string,
  spec: HttpRequestSpec,
  serverPid?: number,
  limit = 20,
): Arm {
  return listArm(name, spec, serverPid, limit, toolPayload);
}

/**
 * BENCH_BASELINE=<dir>: a directory whose src/ is an earlier state of the framework (say, a
 * copy of src/ from before a performance fix). The harness builds a temporary tree with that
 * src/, this bench/ and the repo's node_modules, runs a second server from it, and measures
 * "before" against "after" interleaved in this same run, on the same database.
 */
export function prepareBaselineTree(baselineDir: string, root: string): string {
  const bench = path.join(root, "bench");
  const peer = path.join(bench, "peer");
  const src = path.resolve(baselineDir, "src");
  if (!existsSync(path.join(src, "index.ts"))) {
    throw new Error(`BENCH_BASELINE=${baselineDir}: expected ${src}/index.ts`);
  }
  const tree = mkdtempSync(path.join(os.tmpdir(), "terreno-bench-baseline-"));
  cpSync(src, path.join(tree, "src"), { recursive: true });
  // The example app of that tree too, for its tool catalog's token counts.
  const example = path.resolve(baselineDir, "example-backend");
  if (existsSync(path.join(example, "app.ts"))) {
    cpSync(example, path.join(tree, "example-backend"), { recursive: true });
  }
  cpSync(bench, path.join(tree, "bench"), {
    recursive: true,
    filter: (from) => !from.startsWith(peer),
  });
  cpSync(path.join(root, "package.json"), path.join(tree, "package.json"));
  symlinkSync(path.join(root, "node_modules"), path.join(tree, "node_modules"), "dir");
  return tree;
}
