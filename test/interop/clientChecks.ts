/**
 * Client interop: each real MCP client lists ALL the example's tools and calls EACH of them
 * successfully (create a todo, then read, update, list and delete it by id; list and read a
 * food). Shared by `clients.test.ts` (npm test) and `scripts/interop.ts` (npm run test:interop).
 */
import assert from "node:assert/strict";
import { createMCPClient } from "@ai-sdk/mcp";
import { type ClientKind, connectClient, type ToolCallOutcome } from "../helpers/mcpClients.js";

/**
 * The example app's MCP tools for a signed-in non-admin: todos get all five methods and the
 * `complete` action, foods the default list and read, plus the discovery and change tools.
 */
export const EXAMPLE_TOOLS = [
  "changes_list",
  "changes_undo",
  "describe_models",
  "foods_list",
  "foods_read",
  "todos_complete",
  "todos_create",
  "todos_delete",
  "todos_list",
  "todos_read",
  "todos_update",
  "whoami",
] as const;

export type InteropClientKind = ClientKind | "ai-sdk";

export const INTEROP_CLIENTS: ReadonlyArray<{ kind: InteropClientKind; label: string }> = [
  { kind: "v1", label: "SDK v1 client (@modelcontextprotocol/sdk)" },
  { kind: "v2-auto", label: "SDK v2 client, auto (2026-07-28 first)" },
  { kind: "v2-legacy", label: "SDK v2 client, legacy (initialize)" },
  { kind: "ai-sdk", label: "AI SDK createMCPClient (@ai-sdk/mcp)" },
];

interface ListedTool {
  name: string;
  inputSchema?: unknown;
}

interface InteropClient {
  listTools(): Promise<ListedTool[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolCallOutcome>;
  close(): Promise<void>;
}

async function connectAiSdk(url: string, token: string): Promise<InteropClient> {
  const client = await createMCPClient({
    transport: {
      type: "http",
      url: new URL("/mcp", url).href,
      headers: { Authorization: `Bearer ${token}` },
    },
    clientName: "terreno-interop-ai-sdk",
  });
  // The AI SDK way: a ToolSet whose tools execute over MCP (what generateText would call).
  const tools = await client.tools();
  return {
    listTools: async () =>
      Object.entries(tools).map(([name, tool]) => ({ name, inputSchema: tool.inputSchema })),
    callTool: async (name, args) => {
      const tool = tools[name];
      if (!tool?.execute) throw new Error(`the AI SDK tool set has no executable ${name}`);
      const result = await tool.execute(args, {
        toolCallId: `interop-${name}`,
        messages: [],
        context: {},
      });
      return result as ToolCallOutcome;
    },
    close: () => client.close(),
  };
}

export function connectInteropClient(
  kind: InteropClientKind,
  url: string,
  token: string,
): Promise<InteropClient> {
  return kind === "ai-sdk" ? connectAiSdk(url, token) : connectClient(kind, url, token);
}

function describeFailure(result: ToolCallOutcome): string {
  return result.content?.find((c) => c.type === "text")?.text ?? JSON.stringify(result);
}

function dataOf(
  name: string,
  result: ToolCallOutcome,
): Record<string, unknown> & {
  id?: string;
} {
  assert.notEqual(result.isError, true, `${name} failed: ${describeFailure(result)}`);
  const data = result.structuredContent?.data;
  assert.ok(data && typeof data === "object", `${name} returned no structuredContent.data`);
  return data as Record<string, unknown> & { id?: string };
}

/** Creates the food the read checks use (foods have no MCP create tool). */
export async function createFood(url: string, token: string, name: string): Promise<string> {
  const response = await fetch(new URL("/foods", url), {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ name, calories: 95, eatenAt: new Date().toISOString() }),
  });
  const body = (await response.json()) as { data?: { id?: string } };
  if (response.status !== 201 || !body.data?.id) {
    throw new Error(`POST /foods failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.data.id;
}

export interface ClientCheckResult {
  tools: string[];
  called: string[];
}

/**
 * Connects one client and runs the whole check; throws (an AssertionError) on the first
 * failure. `foodId` names a food the caller may read.
 */
export async function checkClient(
  kind: InteropClientKind,
  url: string,
  token: string,
  foodId: string,
): Promise<ClientCheckResult> {
  const client = await connectInteropClient(kind, url, token);
  const called = new Set<string>();
  const call = async (name: string, args: Record<string, unknown>) => {
    called.add(name);
    return client.callTool(name, args);
  };
  try {
    const tools = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    assert.deepEqual(names, [...EXAMPLE_TOOLS], `${kind} listed other tools`);
    for (const tool of tools) assert.ok(tool.inputSchema, `${tool.name} has no inputSchema`);

    const title = `interop via ${kind}`;
    const created = dataOf(
      "todos_create",
      await call("todos_create", { title, tags: ["interop"] }),
    );
    const id = created.id;
    assert.equal(typeof id, "string", "todos_create returned no id");
    assert.equal(created.title, title);

    const read = dataOf("todos_read", await call("todos_read", { id }));
    assert.equal(read.id, id);
    assert.equal(read.title, title);

    const completed = dataOf("todos_complete", await call("todos_complete", { id }));
    assert.equal(completed.completed, true);
    assert.equal(typeof completed.completedAt, "string", "todos_complete set no completedAt");

    const updated = dataOf("todos_update", await call("todos_update", { id, completed: true }));
    assert.equal(updated.completed, true);

    const listed = await call("todos_list", { filter: { completed: true }, limit: 20 });
    assert.notEqual(listed.isError, true, `todos_list failed: ${describeFailure(listed)}`);
    const todos = (listed.structuredContent?.data ?? []) as Array<{ id?: string }>;
    assert.ok(
      todos.some((todo) => todo.id === id),
      "todos_list did not return the updated todo",
    );

    const foods = await call("foods_list", { limit: 50 });
    assert.notEqual(foods.isError, true, `foods_list failed: ${describeFailure(foods)}`);
    const foodIds = ((foods.structuredContent?.data ?? []) as Array<{ id?: string }>).map(
      (food) => food.id,
    );
    assert.ok(foodIds.includes(foodId), "foods_list did not return the food");

    const food = dataOf("foods_read", await call("foods_read", { id: foodId }));
    assert.equal(food.id, foodId);

    const described = await call("describe_models", { query: "todo" });
    assert.notEqual(
      described.isError,
      true,
      `describe_models failed: ${describeFailure(described)}`,
    );
    const models = (described.structuredContent?.models ?? []) as Array<{ name?: string }>;
    assert.ok(
      models.some((model) => model.name === "Todo"),
      "describe_models did not describe Todo",
    );

    const me = await call("whoami", {});
    assert.notEqual(me.isError, true, `whoami failed: ${describeFailure(me)}`);
    assert.equal(typeof me.structuredContent?.userId, "string", "whoami returned no userId");

    const renamed = `${title} (renamed)`;
    dataOf("todos_update", await call("todos_update", { id, title: renamed }));
    const changes = dataOf("changes_list", await call("changes_list", { record: id, limit: 1 }));
    const [latest] = changes.changes as Array<{ id: string; changes: unknown[] }>;
    // Values come as JSON text (any JSON, in a schema every client accepts).
    assert.deepEqual(latest?.changes, [
      { path: "title", before: JSON.stringify(title), after: JSON.stringify(renamed) },
    ]);
    const undone = dataOf("changes_undo", await call("changes_undo", { id: latest.id }));
    assert.equal(undone.title, title, "changes_undo did not set the title back");

    const deleted = dataOf("todos_delete", await call("todos_delete", { id }));
    assert.equal(deleted.deleted, true);
    const gone = await client.callTool("todos_read", { id });
    assert.equal(gone.isError, true, "todos_read still found the deleted todo");

    const missing = EXAMPLE_TOOLS.filter((name) => !called.has(name));
    assert.deepEqual(missing, [], "some tools were not called");
    return { tools: names, called: [...called].sort() };
  } finally {
    await client.close();
  }
}
