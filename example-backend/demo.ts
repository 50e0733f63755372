/**
 * `npm run example:demo`: a real MCP client session against the running example
 * (`EXAMPLE_URL`, default http://127.0.0.1:4000), step by step:
 *   1. sign up a fresh user over REST;
 *   2. list the MCP tools;
 *   3. create a todo with todos_create, then set its internalNote over REST;
 *   4. list todos with todos_list;
 *   5. show that internalNote is hidden from MCP results and refused in MCP writes;
 *   6. round-trip a checklist: todos_read, edit the items as read (ids and all), send them back
 *      with todos_update, read again: edited items keep their ids, the new one gets its own;
 *   7. merge-patch a nested object, then clear it and the priority with `null`;
 *   8. list by priority, highest first.
 */
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export type DemoLog = (line: string) => void;

interface ToolOutcome {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: Array<{ type: string; text?: string }>;
}

interface ChecklistItem {
  id?: string;
  text: string;
  done?: boolean;
}

interface TodoView {
  id: string;
  title: string;
  completed?: boolean;
  dueDate?: string;
  priority?: number;
  tags?: string[];
  checklist?: ChecklistItem[];
  reminder?: { at?: string; channel?: "email" | "push" };
  internalNote?: string;
}

export interface DemoResult {
  email: string;
  tools: string[];
  todoId: string;
}

/** A failure with a message meant for the person running the demo. */
export class DemoError extends Error {
  override name = "DemoError";
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new DemoError(`Unexpected: ${message}`);
}

async function rest(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(new URL(path, base), {
      method,
      headers: {
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    throw new DemoError(
      `Cannot reach the example server at ${base} (${cause?.code ?? (error as Error).message}). ` +
        "Start it in another terminal with `npm run example`, or set EXAMPLE_URL.",
    );
  }
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    throw new DemoError(
      `${method} ${path} answered ${response.status} with a non-JSON body; is ${base} the example?`,
    );
  }
  return { status: response.status, json };
}

/** The line a model reads first in an isError result: `code: detail`. */
function errorLine(result: ToolOutcome): string {
  const text = result.content?.find((c) => c.type === "text")?.text ?? "";
  return text.split("\n")[0] ?? "";
}

function describeTodo(todo: TodoView): string {
  const done = todo.completed ? "[x]" : "[ ]";
  const priority = todo.priority !== undefined ? `, priority ${todo.priority}` : "";
  const due = todo.dueDate ? `, due ${todo.dueDate.slice(0, 10)}` : "";
  const tags = todo.tags?.length ? `, tags ${todo.tags.join(", ")}` : "";
  return `${done} ${todo.title} (${todo.id}${priority}${due}${tags})`;
}

function describeChecklist(items: ChecklistItem[] | undefined): string[] {
  return (items ?? []).map(
    (item) => `   ${item.done ? "[x]" : "[ ]"} ${item.text} (id ${item.id})`,
  );
}

function describeReminder(todo: TodoView): string {
  if (!todo.reminder) return "none";
  return `${todo.reminder.channel ?? "?"} at ${todo.reminder.at ?? "?"}`;
}

export async function runDemo(url: string, log: DemoLog = console.log): Promise<DemoResult> {
  const base = url.replace(/\/+$/, "");
  log(`terreno-mcp demo against ${base}`);

  // 1. Sign up over REST.
  const email = `demo-${randomBytes(4).toString("hex")}@example.com`;
  const signup = await rest(base, "POST", "/auth/signup", {
    email,
    password: "correct horse battery",
    name: "Demo",
  });
  if (signup.status === 404) {
    throw new DemoError(`${base} has no /auth/signup; is it the terreno-mcp example?`);
  }
  check(signup.status === 201, `POST /auth/signup answered ${signup.status}`);
  const token = (signup.json.data as { token?: string } | undefined)?.token;
  check(typeof token === "string", "the signup response has no data.token");
  log(`\n1. Signed up ${email} over REST (POST /auth/signup -> 201, got a bearer token)`);

  const client = new Client(
    { name: "terreno-example-demo", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", `${base}/`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as ToolOutcome;

    // 2. The tools this caller can use.
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    log(
      `\n2. Connected to ${base}/mcp (protocol ${client.getNegotiatedProtocolVersion() ?? "?"}); ` +
        `${names.length} tools:`,
    );
    for (const tool of tools) log(`   - ${tool.name}: ${tool.title ?? tool.description ?? ""}`);
    for (const expected of ["todos_create", "todos_list", "todos_read", "todos_update"]) {
      check(names.includes(expected), `the tool ${expected} is missing`);
    }
    const createTool = tools.find((tool) => tool.name === "todos_create");
    const createFields = Object.keys(createTool?.inputSchema.properties ?? {});
    log(`   todos_create accepts: ${createFields.join(", ")}`);

    // 3. Create a todo over MCP, then give it an internal note over REST.
    const dueDate = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
    const created = await call("todos_create", {
      title: "Try terreno-mcp",
      dueDate,
      tags: ["demo"],
    });
    check(!created.isError, `todos_create failed: ${errorLine(created)}`);
    const todo = created.structuredContent?.data as TodoView;
    log(`\n3. todos_create -> ${describeTodo(todo)}`);
    const patched = await rest(
      base,
      "PATCH",
      `/todos/${todo.id}`,
      { internalNote: "Server-side only: never shown to AI clients." },
      token,
    );
    check(patched.status === 200, `PATCH /todos/${todo.id} answered ${patched.status}`);
    const restView = patched.json.data as TodoView;
    log(`   PATCH /todos/${todo.id} over REST set internalNote = "${restView.internalNote}"`);

    // 4. List over MCP.
    const listed = await call("todos_list", { limit: 10 });
    check(!listed.isError, `todos_list failed: ${errorLine(listed)}`);
    const todos = (listed.structuredContent?.data ?? []) as TodoView[];
    log(`\n4. todos_list -> ${todos.length} todo(s), total ${listed.structuredContent?.total}:`);
    for (const item of todos) log(`   ${describeTodo(item)}`);

    // 5. internalNote exists on the server but never crosses MCP, in either direction.
    log("\n5. internalNote over MCP:");
    const read = await call("todos_read", { id: todo.id });
    check(!read.isError, `todos_read failed: ${errorLine(read)}`);
    const mcpView = read.structuredContent?.data as Record<string, unknown>;
    check(!("internalNote" in mcpView), "todos_read returned internalNote");
    check(
      todos.every((item) => !("internalNote" in item)),
      "todos_list returned internalNote",
    );
    check(!JSON.stringify(read).includes("Server-side only"), "the note leaked into todos_read");
    log(`   todos_read fields: ${Object.keys(mcpView).join(", ")} (no internalNote)`);
    const update = await call("todos_update", { id: todo.id, internalNote: "from MCP" });
    check(update.isError, "todos_update accepted internalNote");
    log(`   todos_update {internalNote} refused: ${errorLine(update)}`);
    const create = await call("todos_create", { title: "Sneaky", internalNote: "from MCP" });
    check(create.isError, "todos_create accepted internalNote");
    log(`   todos_create {internalNote} refused: ${errorLine(create)}`);
    const after = await rest(base, "GET", `/todos/${todo.id}`, undefined, token);
    const note = (after.json.data as TodoView | undefined)?.internalNote;
    check(note === restView.internalNote, "the note changed");
    log(`   REST still reads internalNote = "${note}"`);

    // 6. A checklist round trip: what todos_read returns is what todos_update takes.
    const readData = async (id: string): Promise<TodoView> => {
      const result = await call("todos_read", { id });
      check(!result.isError, `todos_read failed: ${errorLine(result)}`);
      return result.structuredContent?.data as TodoView;
    };
    const remindAt = new Date(Date.now() + 2 * 24 * 3600 * 1000).toISOString();
    const planned = await call("todos_create", {
      title: "Plan the launch",
      priority: 2,
      checklist: [{ text: "Write the announcement" }, { text: "Pick a date" }],
      reminder: { at: remindAt, channel: "email" },
    });
    check(!planned.isError, `todos_create failed: ${errorLine(planned)}`);
    const launchId = (planned.structuredContent?.data as TodoView | undefined)?.id;
    check(typeof launchId === "string", "todos_create returned no id");
    const before = await readData(launchId);
    log(`\n6. todos_read -> ${describeTodo(before)}, checklist:`);
    for (const line of describeChecklist(before.checklist)) log(line);
    const [first, second] = before.checklist ?? [];
    check(first?.id && second?.id, "checklist items were read without ids");
    // Edit the list as read: tick the first item, reword the second, add a third (no id yet).
    const edited: ChecklistItem[] = [
      { ...first, done: true },
      { ...second, text: "Pick a date (a Tuesday)" },
      { text: "Tell the team" },
    ];
    const sent = await call("todos_update", { id: launchId, checklist: edited });
    check(!sent.isError, `todos_update {checklist} failed: ${errorLine(sent)}`);
    const roundTripped = await readData(launchId);
    log("   todos_update {id, checklist: <the items as read, edited>} -> todos_read:");
    for (const line of describeChecklist(roundTripped.checklist)) log(line);
    const items = roundTripped.checklist ?? [];
    check(items.length === 3, `the checklist has ${items.length} items, not 3`);
    check(items[0].id === first.id && items[0].done === true, "the first item lost its id or tick");
    check(
      items[1].id === second.id && items[1].text === "Pick a date (a Tuesday)",
      "the second item lost its id or edit",
    );
    check(
      typeof items[2].id === "string" && items[2].id !== first.id && items[2].id !== second.id,
      "the new item has no id of its own",
    );
    log("   edited items kept their ids; the new item got its own");

    // 7. Updates are merge patches: a nested object merges, and null clears a field.
    log(`\n7. reminder: ${describeReminder(roundTripped)}`);
    const merged = await call("todos_update", { id: launchId, reminder: { channel: "push" } });
    check(!merged.isError, `todos_update {reminder: {channel}} failed: ${errorLine(merged)}`);
    const rechanneled = await readData(launchId);
    check(rechanneled.reminder?.channel === "push", "the reminder's channel did not change");
    check(
      rechanneled.reminder?.at === before.reminder?.at,
      "merging the channel lost the reminder's time",
    );
    log(
      `   todos_update {reminder: {channel: "push"}} -> ${describeReminder(rechanneled)} (time kept)`,
    );
    const cleared = await call("todos_update", { id: launchId, reminder: null, priority: null });
    check(
      !cleared.isError,
      `todos_update {reminder: null, priority: null} failed: ${errorLine(cleared)}`,
    );
    const clearedView = await readData(launchId);
    check(clearedView.reminder === undefined, "reminder: null did not clear the reminder");
    check(clearedView.priority === undefined, "priority: null did not clear the priority");
    check(clearedView.checklist?.length === 3, "clearing other fields changed the checklist");
    log(
      `   todos_update {reminder: null, priority: null} -> reminder ${describeReminder(clearedView)}, ` +
        `priority ${clearedView.priority ?? "none"}; the checklist is untouched`,
    );

    // 8. Priority filters and sorts.
    const urgent = await call("todos_create", { title: "Fix the build", priority: 1 });
    check(!urgent.isError, `todos_create failed: ${errorLine(urgent)}`);
    const someday = await call("todos_create", { title: "Tidy the wiki", priority: 4 });
    check(!someday.isError, `todos_create failed: ${errorLine(someday)}`);
    const byPriority = await call("todos_list", {
      filter: { priority: { $lte: 4 } },
      sort: "priority",
      limit: 10,
    });
    check(!byPriority.isError, `todos_list by priority failed: ${errorLine(byPriority)}`);
    const ranked = (byPriority.structuredContent?.data ?? []) as TodoView[];
    log(`\n8. todos_list {filter: {priority: {$lte: 4}}, sort: "priority"} ->`);
    for (const item of ranked) log(`   ${describeTodo(item)}`);
    check(
      ranked.map((item) => item.title).join(",") === "Fix the build,Tidy the wiki",
      "the priority list is not [Fix the build, Tidy the wiki]",
    );

    // 9. Discovery: what this caller can reach, and who it is.
    const described = await call("describe_models", { query: "todo" });
    check(!described.isError, `describe_models failed: ${errorLine(described)}`);
    const models = (described.structuredContent?.models ?? []) as Array<{
      name: string;
      tools: string[];
      fields: Array<{ name: string }>;
      relationships: Array<{ relationship: string; target: string; property: string }>;
    }>;
    const todoModel = models[0];
    check(todoModel?.name === "Todo", 'describe_models {query: "todo"} did not find Todo first');
    check(
      !todoModel.fields.some((field) => field.name === "internalNote"),
      "describe_models showed internalNote",
    );
    check(!models.some((model) => model.name === "User"), "a non-admin was shown the User model");
    log(`\n9. describe_models {query: "todo"} -> ${models.map((model) => model.name).join(", ")}`);
    log(`   Todo tools: ${todoModel.tools.join(", ")}`);
    log(`   Todo fields: ${todoModel.fields.map((field) => field.name).join(", ")}`);
    const whoami = await call("whoami", {});
    check(!whoami.isError, `whoami failed: ${errorLine(whoami)}`);
    log(`   whoami -> ${JSON.stringify(whoami.structuredContent)}`);
    if (names.includes("todos_complete")) {
      const completed = await call("todos_complete", { id: todo.id });
      check(!completed.isError, `todos_complete failed: ${errorLine(completed)}`);
      const done = completed.structuredContent?.data as TodoView | undefined;
      check(done?.completed === true, "todos_complete did not complete the todo");
      log(`   todos_complete {id} -> ${done ? describeTodo(done) : "?"}`);
    }

    log("\nDemo passed.");
    return { email, tools: names, todoId: todo.id };
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const url = process.env.EXAMPLE_URL ?? "http://127.0.0.1:4000";
  try {
    await runDemo(url);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`\nDemo failed: ${message}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
