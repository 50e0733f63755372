/**
 * The MCP Inspector's CLI against the example app: `tools/list` and `tools/call` with
 * @modelcontextprotocol/inspector-cli 1.0.3 on this Node (20), and with Inspector 2.x on Node 22,
 * whose `tools/list --strict` also lints every tool schema for portability (exit 6 on an error).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EXAMPLE_TOOLS } from "./clientChecks.js";
import type { Item } from "./conformance.js";
import { ROOT_DIR, run, toolPath, toolVersion } from "./tools.js";

export interface InspectorCheck {
  item: Item;
  command: string;
  ms: number;
}

interface Invocation {
  name: string;
  node: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  validate: Validate;
}

/** A problem with what the command printed, or undefined when it is as expected. */
type Validate = (stdout: string, stderr: string) => string | undefined;

/** `tools/call` of `tool` with one `key=value` argument (after `--method`). */
const toolCall = (tool: string, arg: string) => [
  "tools/call",
  "--tool-name",
  tool,
  "--tool-arg",
  arg,
];

function parseJson(stdout: string): Record<string, unknown> | undefined {
  const start = stdout.indexOf("{");
  if (start === -1) return undefined;
  try {
    return JSON.parse(stdout.slice(start)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function expectAllTools(stdout: string): string | undefined {
  const tools = (parseJson(stdout)?.tools ?? []) as Array<{ name?: string }>;
  const names = tools.map((tool) => tool.name).sort();
  return JSON.stringify(names) === JSON.stringify(EXAMPLE_TOOLS)
    ? undefined
    : `listed ${JSON.stringify(names)}, expected ${JSON.stringify(EXAMPLE_TOOLS)}`;
}

function expectToolSuccess(stdout: string): string | undefined {
  const result = parseJson(stdout);
  if (!result) return `no JSON result on stdout: ${stdout.slice(0, 300)}`;
  if (result.isError === true) return `the tool returned isError: ${stdout.slice(0, 500)}`;
  const structured = result.structuredContent as { data?: unknown } | undefined;
  return structured?.data === undefined ? "the result has no structuredContent.data" : undefined;
}

/** The record templates (issue 25), one per model with a read tool: `terreno://todos/{id}`. */
function expectTemplates(stdout: string): string | undefined {
  const result = parseJson(stdout) as
    | { resourceTemplates?: Array<{ uriTemplate?: string }> }
    | undefined;
  const uris = result?.resourceTemplates?.map((template) => template.uriTemplate) ?? [];
  return uris.includes("terreno://todos/{id}")
    ? undefined
    : `no terreno://todos/{id} template: ${stdout.slice(0, 500)}`;
}

/** The caller's records as resources (the todo the CLI created just before is one). */
/**
 * The first page of `resources/list`: the caller's records (`terreno://todos/<id>`), or, in an
 * app with MCP Apps views, the views (listed first) and a cursor on to the records. The
 * Inspector CLI fetches one page; npm test's inspectorResources.test.ts reads a record.
 */
function expectRecords(stdout: string): string | undefined {
  const result = parseJson(stdout) as
    | { resources?: Array<{ uri?: string; name?: string }>; nextCursor?: unknown }
    | undefined;
  const resources = result?.resources ?? [];
  if (resources.length === 0 || resources.some((resource) => !resource.uri || !resource.name)) {
    return `no resources, or one without uri and name: ${stdout.slice(0, 500)}`;
  }
  const records = resources.some((resource) => resource.uri?.startsWith("terreno://todos/"));
  const viewsThenRecords =
    resources.some((resource) => resource.uri === "ui://terreno/todos_list") &&
    typeof result?.nextCursor === "string";
  return records || viewsThenRecords
    ? undefined
    : `neither terreno://todos/<id> records nor the todos views with a cursor on: ${stdout.slice(0, 500)}`;
}

const quote = (arg: string) =>
  /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;

/** Shows a command as run from the repository root, with the bearer token elided. */
function display(invocation: Invocation): string {
  const shown = invocation.args.map((arg) =>
    path.isAbsolute(arg)
      ? path.relative(invocation.cwd, arg)
      : arg.replace(/Bearer \S+/, "Bearer $TOKEN"),
  );
  const node = invocation.node === process.execPath ? "node" : "node22";
  const cwd = path.relative(ROOT_DIR, invocation.cwd);
  return `${cwd ? `cd ${cwd} && ` : ""}${[node, ...shown.map(quote)].join(" ")}`;
}

export async function runInspectorChecks(
  node22: string,
  mcpUrl: string,
  token: string,
): Promise<InspectorCheck[]> {
  const header = `Authorization: Bearer ${token}`;
  // Inspector-cli 1.0.3 reads ../package.json relative to its working directory (to name
  // itself) and crashes without one, so it runs from test/, whose parent holds package.json.
  const v1Cli = path.join(
    ROOT_DIR,
    "node_modules",
    "@modelcontextprotocol",
    "inspector-cli",
    "build",
    "cli.js",
  );
  const v1Version = JSON.parse(
    fs.readFileSync(path.join(path.dirname(v1Cli), "..", "package.json"), "utf8"),
  ).version as string;
  // Its `--cli` mode re-runs itself with the `node` on PATH: make that this Node 20.
  const v1Env = {
    ...process.env,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
  };
  const v1Base = ["--cli", mcpUrl, "--transport", "http", "--header", header];

  // Inspector 2.x keeps a catalog and state under $HOME/.mcp-inspector: give it a throwaway home.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "terreno-inspector-home-"));
  const v2Launcher = toolPath("@modelcontextprotocol/inspector", "clients/launcher/build/index.js");
  const v2Version = toolVersion("@modelcontextprotocol/inspector");
  const v2Env = {
    ...process.env,
    HOME: home,
    MCP_CATALOG_PATH: path.join(home, "mcp.json"),
  };
  const v2Base = ["--cli", mcpUrl, "--transport", "http", "--header", header];

  const v1 = (what: string, method: string[], validate: Validate): Invocation => ({
    name: `inspector-cli ${v1Version}: ${what}`,
    node: process.execPath,
    args: [v1Cli, ...v1Base, "--method", ...method],
    cwd: path.join(ROOT_DIR, "test"),
    env: v1Env,
    validate,
  });
  const v2 = (what: string, method: string[], validate: Validate): Invocation => ({
    name: `inspector ${v2Version} (Node 22): ${what}`,
    node: node22,
    args: [v2Launcher, ...v2Base, "--method", ...method],
    cwd: ROOT_DIR,
    env: v2Env,
    validate,
  });

  const invocations: Invocation[] = [
    v1("tools/list", ["tools/list"], expectAllTools),
    v1(
      "tools/call todos_create",
      toolCall("todos_create", "title=Created by the Inspector CLI"),
      expectToolSuccess,
    ),
    v1("resources/templates/list", ["resources/templates/list"], expectTemplates),
    v1("resources/list", ["resources/list"], expectRecords),
    v1("tools/call todos_list", toolCall("todos_list", "limit=5"), expectToolSuccess),
    v2(
      "tools/list --strict (schema lint)",
      ["tools/list", "--strict"],
      (stdout, stderr) =>
        expectAllTools(stdout) ??
        // --strict prints every finding (warnings too) on stderr; the app should have none.
        (stderr.trim() ? `schema lint findings:\n${stderr.trim().slice(0, 2000)}` : undefined),
    ),
    v2("tools/call todos_list", toolCall("todos_list", "limit=5"), expectToolSuccess),
  ];

  const checks: InspectorCheck[] = [];
  try {
    for (const invocation of invocations) {
      const result = await run(invocation.node, invocation.args, {
        cwd: invocation.cwd,
        env: invocation.env,
        timeoutMs: 60_000,
      });
      // inspector-cli 1.0.3 prints a deprecation notice on stderr; it is not a failure.
      const stderr = result.stderr.replace(
        /\s*⚠️[^\n]*deprecated\.[\s\S]*?security fixes only\.\s*/u,
        "",
      );
      const problem =
        result.code !== 0
          ? `exit ${result.code ?? result.signal}: ${(stderr || result.stdout).trim().slice(0, 1500)}`
          : invocation.validate(result.stdout, stderr);
      checks.push({
        item: {
          group: "inspector",
          name: invocation.name,
          status: problem ? "fail" : "pass",
          detail: problem,
        },
        command: display(invocation),
        ms: result.ms,
      });
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
  return checks;
}
