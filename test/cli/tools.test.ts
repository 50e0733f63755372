/**
 * The tools CLI, spawned as users run it (`node --import tsx src/cli/index.ts tools <module>`):
 * per-caller catalogs, token counts, JSON and verbose output, a user looked up by email in
 * the app's database, and a clear error for a module with no app.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { before, describe, test } from "node:test";
import { promisify } from "node:util";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { createApp } from "./fixtures/app.js";

const database = useTestDatabase("cli_tools");
const run = promisify(execFile);
const FIXTURE = "test/cli/fixtures/app.ts";

async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", "src/cli/index.ts", ...args],
      { env: { ...process.env, ...env }, timeout: 120_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

const toolNames = (stdout: string) =>
  [...stdout.matchAll(/^(\w+) {2}"/gm)].map((match) => match[1]);

describe("terreno-mcp tools", () => {
  let admin: TestUser;

  before(async () => {
    const app = (await createApp()).build();
    admin = await signUp(app, "cli-admin");
    await User.updateOne({ _id: admin.userId }, { $set: { admin: true } }).exec();
  });

  test("default: a signed-in non-admin's tools, with titles, annotations, inputs and tokens", async () => {
    const { code, stdout } = await cli(["tools", FIXTURE]);
    assert.equal(code, 0);
    assert.match(stdout, /^9 tools for a signed-in user who is not an admin:/);
    assert.deepEqual(toolNames(stdout), [
      "describe_models",
      "foods_list",
      "foods_read",
      "todos_create",
      "todos_delete",
      "todos_list",
      "todos_read",
      "todos_update",
      "whoami",
    ]);
    assert.match(
      stdout,
      /todos_read {2}"Read a Todo" {2}\d+ tokens\n {2}annotations: readOnly\n {2}input: id\*, populate/,
    );
    const perTool = [...stdout.matchAll(/ (\d+) tokens\n/g)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
    assert.match(stdout, new RegExp(`Total: ${perTool} o200k tokens for 9 tools`));
    assert.doesNotMatch(stdout, /users_list|inputSchema:/);
  });

  test("--admin --json: JSON, admin tools included", async () => {
    const { code, stdout } = await cli(["tools", FIXTURE, "--admin", "--json"]);
    assert.equal(code, 0);
    const out = JSON.parse(stdout) as {
      caller: string;
      tools: Array<{ name: string; tokens: number; inputFields: string[] }>;
      totalTokens: number;
    };
    assert.equal(out.caller, "a signed-in admin");
    assert.ok(out.tools.some((t) => t.name === "users_list"));
    assert.equal(
      out.totalTokens,
      out.tools.reduce((sum, t) => sum + t.tokens, 0),
    );
  });

  test("--verbose adds descriptions and schemas; --anonymous sees nothing here", async () => {
    const verbose = await cli(["tools", FIXTURE, "--verbose"]);
    assert.match(verbose.stdout, /description: The data models you can work with/);
    assert.match(verbose.stdout, /inputSchema: \{"type":"object"/);
    const anonymous = await cli(["tools", FIXTURE, "--anonymous"]);
    assert.match(anonymous.stdout, /^0 tools for an anonymous caller:/);
  });

  test("--user looks the user up by email through MONGODB_URI", async () => {
    const { code, stdout, stderr } = await cli(["tools", FIXTURE, "--user", admin.email], {
      MONGODB_URI: database.current().uri,
    });
    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`^11 tools for ${admin.email}:`));
    assert.ok(toolNames(stdout).includes("users_read"));
    const missing = await cli(["tools", FIXTURE, "--user", "nobody@example.com"], {
      MONGODB_URI: database.current().uri,
    });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No user with email nobody@example.com/);
  });

  test("--user: a permission that reads the database runs after the lookup, on its connection", async () => {
    const owner = await signUp((await createApp()).build(), "cli-owner");
    await Todo.create({ title: "have a todo", ownerId: owner.userId });
    const env = { MONGODB_URI: database.current().uri };
    const { code, stdout, stderr } = await cli(
      ["tools", "test/cli/fixtures/readsDataApp.ts", "--user", owner.email],
      env,
    );
    assert.equal(code, 0, stderr);
    assert.deepEqual(toolNames(stdout), ["foods_list", "todos_list"]);
    const other = await signUp((await createApp()).build(), "cli-no-todo");
    const without = await cli(
      ["tools", "test/cli/fixtures/readsDataApp.ts", "--user", other.email],
      env,
    );
    assert.equal(without.code, 0, without.stderr);
    assert.deepEqual(toolNames(without.stdout), ["todos_list"]);
  });

  test("a module with no app, or no command, is a clear error", async () => {
    const noApp = await cli(["tools", "test/cli/fixtures/noApp.ts"]);
    assert.equal(noApp.code, 1);
    assert.match(noApp.stderr, /exports no TerrenoApp.*Its exports: answer/);
    const usage = await cli([]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /Usage: terreno-mcp tools <module>/);
  });
});
