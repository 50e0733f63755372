/**
 * The MCP Inspector CLI (inspector-cli, a real third-party client) lists the record templates
 * and the caller's records as resources, and reads one: what a person browsing the server in
 * the Inspector sees. It runs from test/, whose parent holds a package.json (it reads one).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import request from "supertest";
import { signedUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { useListening } from "../helpers/mcpClients.js";
import { buildRestApp } from "../helpers/restApp.js";

useTestDatabase("mcp_inspector_resources");

const TEST_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.resolve(
  TEST_DIR,
  "..",
  "node_modules/@modelcontextprotocol/inspector-cli/build/cli.js",
);

describe("the Inspector CLI lists resources and templates", () => {
  const app = buildRestApp();
  const server = useListening(app);
  const [alice] = signedUp(app, "alice");
  let milk: string;

  before(async () => {
    milk = (
      await request(app)
        .post("/todos")
        .set("Authorization", `Bearer ${alice.token}`)
        .send({ title: "Inspector milk" })
        .expect(201)
    ).body.data.id;
  });

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

  test("resources/templates/list, resources/list and resources/read", async () => {
    const templates = (await inspector("--method", "resources/templates/list")) as {
      resourceTemplates: Array<{ uriTemplate: string; mimeType?: string }>;
    };
    const todos = templates.resourceTemplates.find((t) => t.uriTemplate === "terreno://todos/{id}");
    assert.equal(todos?.mimeType, "application/json", JSON.stringify(templates));

    const listed = (await inspector("--method", "resources/list")) as {
      resources: Array<{ uri: string; name: string }>;
    };
    const entry = listed.resources.find((r) => r.uri === `terreno://todos/${milk}`);
    assert.equal(entry?.name, "Inspector milk", JSON.stringify(listed));

    const read = (await inspector(
      "--method",
      "resources/read",
      "--uri",
      `terreno://todos/${milk}`,
    )) as { contents: Array<{ text: string }> };
    const record = JSON.parse(read.contents[0]?.text ?? "null");
    assert.equal(record.id, milk);
    assert.equal(record.title, "Inspector milk");
  });
});
