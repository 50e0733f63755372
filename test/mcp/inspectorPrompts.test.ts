/**
 * The MCP Inspector CLI (inspector-cli, a real third-party client) lists the example's prompts
 * and gets `review_todo` for the caller's own todo: what a person trying the server's prompts
 * in the Inspector sees. It runs from test/, whose parent holds a package.json (it reads one).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { type Listening, listen } from "../helpers/mcpClients.js";

useTestDatabase("mcp_inspector_prompts");

const TEST_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.resolve(
  TEST_DIR,
  "..",
  "node_modules/@modelcontextprotocol/inspector-cli/build/cli.js",
);

describe("the Inspector CLI lists prompts and gets one", () => {
  const app = createExampleApp({ jwtSecret: "inspector-prompts-secret", env: {} }).build();
  let server: Listening;
  let alice: TestUser;

  before(async () => {
    server = await listen(app);
    alice = await signUp(app, "alice");
    await request(app)
      .post("/todos")
      .set("Authorization", `Bearer ${alice.token}`)
      .send({ title: "Inspector milk" })
      .expect(201);
  });
  after(() => server.close());

  async function inspector(...args: string[]): Promise<Record<string, unknown>> {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        CLI,
        "--cli",
        `${server.url}/mcp`,
        "--transport",
        "http",
        "--header",
        `Authorization: Bearer ${alice.token}`,
        ...args,
      ],
      // Its --cli mode re-runs itself with the `node` on PATH: make that this Node.
      {
        cwd: TEST_DIR,
        env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` },
        timeout: 60_000,
      },
    );
    return JSON.parse(stdout);
  }

  test("prompts/list and prompts/get", async () => {
    const listed = (await inspector("--method", "prompts/list")) as {
      prompts: Array<{ name: string; arguments?: Array<{ name: string }> }>;
    };
    assert.deepEqual(
      listed.prompts.map((prompt) => prompt.name),
      ["plan_my_day", "review_todo"],
    );
    const got = (await inspector(
      "--method",
      "prompts/get",
      "--prompt-name",
      "review_todo",
      "--prompt-args",
      "todo=Inspector milk",
    )) as { messages: Array<{ role: string; content: { text?: string } }> };
    assert.equal(got.messages[0]?.role, "user");
    assert.match(got.messages[0]?.content.text ?? "", /Review my todo "Inspector milk"/);
  });
});
