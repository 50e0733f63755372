// `npm run test:interop`: the example app against real MCP tooling.
//   1. the official conformance runners (@modelcontextprotocol/conformance 0.1.x and 0.2.x, on
//      Node 22) against the conformance fixture app (test/interop/fixtureApp.ts: the suite's
//      fixture tools and prompts, built with the public API, over the same database) through a
//      local proxy that adds the bearer token the runners cannot send, and 0.2.x's
//      authorization-server scenarios against the example app's built-in OAuth server;
//   2. the MCP Inspector CLI (1.0.3 on this Node, 2.x with its --strict schema lint on Node 22);
//   3. the SDK v1 client, the SDK v2 client (auto and legacy) and the AI SDK's createMCPClient.
// Prints one line per check and ends with "N passed, M failed"; exits 1 on any unexpected
// failure. Expected conformance failures live in test/interop/conformance-expected-failures.json.
// Uses MONGODB_URI when set, else a private FerretDB. Logs go to .cache/interop/.

import fs from "node:fs";
import path from "node:path";
import { runAuthorizationConformance } from "../test/interop/authorization.js";
import { checkClient, createFood, INTEROP_CLIENTS } from "../test/interop/clientChecks.js";
import {
  type ConformanceRun,
  type Item,
  loadExpectedFailures,
  runConformance,
} from "../test/interop/conformance.js";
import { type ExampleServer, startExampleServer } from "../test/interop/exampleServer.js";
import { type FixtureServer, startFixtureServer } from "../test/interop/fixtureApp.js";
import { runInspectorChecks } from "../test/interop/inspector.js";
import { type AuthProxy, startAuthProxy } from "../test/interop/proxy.js";
import {
  ensureToolsInstalled,
  node22Binary,
  ROOT_DIR,
  run,
  toolPath,
  toolVersion,
} from "../test/interop/tools.js";

const LOG_DIR = path.join(ROOT_DIR, ".cache", "interop");
const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

const MARK: Record<Item["status"], string> = {
  pass: "PASS ",
  fail: "FAIL ",
  xfail: "XFAIL",
  xpass: "XPASS",
  skip: "SKIP ",
};

function conformanceRuns(): ConformanceRun[] {
  const stable = "@modelcontextprotocol/conformance";
  const alpha = "conformance-alpha"; // npm alias of @modelcontextprotocol/conformance@0.2.0-alpha
  const legacyRequired = ["server-initialize", "tools-list", "dns-rebinding-protection"];
  return [
    {
      id: "v0.1",
      runner: toolPath(stable, "dist/index.js"),
      version: toolVersion(stable),
      args: [], // the runner's default "active" suite (2025-era protocol)
      required: legacyRequired,
    },
    {
      id: "v0.2@2025-11-25",
      runner: toolPath(alpha, "dist/index.js"),
      version: toolVersion(alpha),
      args: ["--requirements", "2025-11-25"],
      required: legacyRequired,
    },
    {
      id: "v0.2@2026-07-28",
      runner: toolPath(alpha, "dist/index.js"),
      version: toolVersion(alpha),
      args: ["--requirements", "2026-07-28"],
      required: [
        "tools-list",
        "dns-rebinding-protection",
        "server-stateless",
        "http-header-validation",
        "caching:sep-2549-tools-list-caching-hints",
      ],
    },
  ];
}

async function main(): Promise<number> {
  const started = performance.now();
  const items: Item[] = [];
  const timings: Array<[string, number]> = [];
  const commands: string[] = [];
  const time = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      timings.push([label, performance.now() - t0]);
    }
  };

  fs.mkdirSync(LOG_DIR, { recursive: true });
  await time("install Node 22 tools", () => ensureToolsInstalled(log));
  const node22 = node22Binary();
  const node22Version = (await run(node22, ["--version"])).stdout.trim();
  log(`interop: app on Node ${process.version}; runners on Node ${node22Version} (${node22})`);
  const expected = loadExpectedFailures();

  let server: ExampleServer | undefined;
  let proxy: AuthProxy | undefined;
  let fixture: FixtureServer | undefined;
  try {
    server = await time("database + example app", () => startExampleServer({ name: "interop" }));
    const app = server;
    fixture = await time("conformance fixture app", () => startFixtureServer());
    proxy = await startAuthProxy(fixture.url, fixture.token);
    const viaProxy = proxy.url;
    log(
      `interop: example app at ${app.url}/mcp, fixture app at ${fixture.url}/mcp, auth proxy (to the fixture app) at ${viaProxy}/mcp`,
    );

    // 1. Conformance.
    for (const conf of conformanceRuns()) {
      const outputDir = path.join(LOG_DIR, `conformance-${conf.id.replace(/[^\w.-]+/g, "_")}`);
      const outcome = await time(`conformance ${conf.version} ${conf.args.join(" ")}`, () =>
        runConformance(conf, node22, `${viaProxy}/mcp`, outputDir, expected[conf.id] ?? {}),
      );
      commands.push(
        `node22 ${path.relative(ROOT_DIR, conf.runner)} server --url ${viaProxy}/mcp ${conf.args.join(" ")} -o ${path.relative(ROOT_DIR, outputDir)}`.replace(
          /\s+/g,
          " ",
        ),
      );
      items.push(...outcome.items);
    }
    const alpha = "conformance-alpha";
    const authorization = await time(`conformance ${toolVersion(alpha)} authorization`, () =>
      runAuthorizationConformance(
        {
          id: "v0.2-authorization",
          runner: toolPath(alpha, "dist/index.js"),
          version: toolVersion(alpha),
          required: ["authorization-server-metadata-endpoint", "authorization-code-grant"],
        },
        node22,
        app,
        path.join(LOG_DIR, "conformance-v0.2-authorization"),
        expected["v0.2-authorization"] ?? {},
      ),
    );
    items.push(...authorization.items);
    commands.push(authorization.command);

    // 2. Inspector CLI.
    const inspector = await time("inspector CLI", () =>
      runInspectorChecks(node22, `${app.url}/mcp`, app.user.token),
    );
    for (const check of inspector) {
      items.push(check.item);
      commands.push(`${check.command}   (${seconds(check.ms)})`);
    }

    // 3. Clients.
    const foodId = await createFood(app.url, app.user.token, "Interop apple");
    await time("clients", async () => {
      for (const { kind, label } of INTEROP_CLIENTS) {
        try {
          const result = await checkClient(kind, app.url, app.user.token, foodId);
          items.push({
            group: "clients",
            name: label,
            status: "pass",
            detail: `listed all ${result.tools.length} tools and called each`,
          });
        } catch (error) {
          items.push({
            group: "clients",
            name: label,
            status: "fail",
            detail: error instanceof Error ? error.message : String(error),
          });
        }
      }
    });
  } finally {
    await proxy?.close();
    // Closing an app disconnects Mongoose: the fixture app goes first, after the example's last use.
    await fixture?.close();
    await server?.close();
  }

  // Summary.
  let group = "";
  log("");
  for (const item of items) {
    if (item.group !== group) {
      group = item.group;
      log(`== ${group}`);
    }
    const detail = item.detail ? `  (${item.detail.replace(/\n/g, "\n          ")})` : "";
    log(`  ${MARK[item.status]} ${item.name}${detail}`);
  }
  const count = (status: Item["status"]) => items.filter((item) => item.status === status).length;
  const passed = count("pass") + count("xpass");
  const failed = count("fail");
  log("");
  log("Commands:");
  for (const command of commands) log(`  ${command}`);
  log("");
  log("Timings:");
  for (const [label, ms] of timings) log(`  ${label}: ${seconds(ms)}`);
  log(`  total: ${seconds(performance.now() - started)}`);
  log("");
  log(
    `Expected failures: ${count("xfail")} (see test/interop/conformance-expected-failures.json); ` +
      `unexpectedly passed: ${count("xpass")}; skipped: ${count("skip")}. Logs: ${path.relative(ROOT_DIR, LOG_DIR)}/`,
  );
  if (count("xpass") > 0) {
    log("Some expected failures passed (XPASS above): remove those entries from the file.");
  }
  log(`${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `interop: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    log("0 passed, 1 failed");
    process.exit(1);
  },
);
