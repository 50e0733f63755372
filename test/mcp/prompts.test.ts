/**
 * The app's prompts (`app.prompt`) through the official SDK clients of both eras: the example's
 * `review_todo` and `plan_my_day`, listed per caller, got with messages built from the caller's
 * own records, their arguments completed from the caller's todo titles and never another
 * user's, and arguments the prompt refuses answered with the spec's -32602.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import { z } from "zod";
import { createExampleApp } from "../../example-backend/app.js";
import { User } from "../../example-backend/models/User.js";
import { registerExamplePrompts } from "../../example-backend/prompts.js";
import { todoRouter } from "../../example-backend/resources/todos.js";
import { getMCPPrompts } from "../../src/ai/getMCPPrompts.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { toUser } from "../../src/auth/userPlugin.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { CLIENT_KINDS, connectSdkClient, type Listening, listen } from "../helpers/mcpClients.js";

useTestDatabase("mcp_prompts");

interface PromptClient {
  listPrompts(): Promise<{
    prompts: Array<{
      name: string;
      title?: string;
      arguments?: Array<{ name: string; required?: boolean }>;
    }>;
  }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{
    description?: string;
    messages: Array<{ role: string; content: { type: string; text?: string } }>;
  }>;
  complete(params: {
    ref: { type: "ref/prompt"; name: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[]; hasMore?: boolean } }>;
  getServerCapabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

async function errorOf(run: () => Promise<unknown>): Promise<{ code: unknown; message: string }> {
  try {
    await run();
  } catch (error) {
    const { code, message } = error as { code: unknown; message: string };
    return { code, message };
  }
  assert.fail("expected an error");
}

describe("prompts", () => {
  let rootId = "";
  // An extra prompt only one user sees, and one whose argument is an enum and another
  // completed by a function run as the caller.
  const terreno = createExampleApp({ jwtSecret: "prompts-test-secret", env: {} })
    .prompt("audit_report", {
      description: "Only the auditor sees it.",
      permissions: (user) => user?.id === rootId,
      messages: () => [{ role: "user", content: "Report." }],
    })
    .prompt("greet", {
      description: "Greets in a tone.",
      arguments: {
        tone: z.enum(["formal", "friendly", "funny"]).describe("How to greet."),
        name: z.string().optional(),
      },
      complete: { name: (value, ctx) => [`${value}-${ctx.user?.id ?? "nobody"}`] },
      messages: ({ tone, name }) => [{ role: "user", content: `Greet ${name ?? "me"}, ${tone}.` }],
    });
  const app = terreno.build();
  let server: Listening;
  let alice: TestUser;
  let bob: TestUser;
  let root: TestUser;
  let bobsId: string;

  before(async () => {
    server = await listen(app);
    alice = await signUp(app, "alice");
    bob = await signUp(app, "bob");
    root = await signUp(app, "root");
    rootId = root.userId;
    const create = async (user: TestUser, body: Record<string, unknown>) =>
      (
        await request(app)
          .post("/todos")
          .set("Authorization", `Bearer ${user.token}`)
          .send(body)
          .expect(201)
      ).body.data.id as string;
    await create(alice, { title: "Buy milk", priority: 2 });
    await create(alice, { title: "Walk the dog" });
    await create(alice, { title: "Call mum", completed: true });
    bobsId = await create(bob, { title: "Bob's milk secret" });
  });
  after(() => server.close());

  for (const kind of CLIENT_KINDS) {
    describe(kind, () => {
      let client: PromptClient;
      let rootClient: PromptClient;
      before(async () => {
        client = (await connectSdkClient(kind, server.url, alice.token)) as unknown as PromptClient;
        rootClient = (await connectSdkClient(
          kind,
          server.url,
          root.token,
        )) as unknown as PromptClient;
      });
      after(async () => {
        await client.close();
        await rootClient.close();
      });

      test("prompts/list shows each caller the prompts it may see", async () => {
        const { prompts } = await client.listPrompts();
        assert.deepEqual(
          prompts.map((p) => p.name),
          ["greet", "plan_my_day", "review_todo"],
        );
        const review = prompts.find((p) => p.name === "review_todo");
        assert.equal(review?.title, "Review a todo");
        assert.deepEqual(
          review?.arguments?.map((a) => [a.name, a.required]),
          [["todo", true]],
        );
        const rootNames = (await rootClient.listPrompts()).prompts.map((p) => p.name);
        assert.deepEqual(rootNames, ["audit_report", "greet", "plan_my_day", "review_todo"]);
        assert.ok(client.getServerCapabilities()?.prompts);
      });

      test("prompts/get builds the messages from the caller's own todo", async () => {
        const result = await client.getPrompt({
          name: "review_todo",
          arguments: { todo: "Buy milk" },
        });
        assert.equal(result.messages.length, 1);
        const text = result.messages[0]?.content.text ?? "";
        assert.equal(result.messages[0]?.role, "user");
        assert.match(text, /Review my todo "Buy milk"/);
        assert.match(text, /"priority":2/);
        const plan = await client.getPrompt({ name: "plan_my_day" });
        const planText = plan.messages[0]?.content.text ?? "";
        assert.match(planText, /Buy milk/);
        assert.match(planText, /Walk the dog/);
        assert.doesNotMatch(planText, /Call mum|Bob/);
      });

      test("another user's todo is not found, by title or by id", async () => {
        const get = (todo: string) =>
          errorOf(() => client.getPrompt({ name: "review_todo", arguments: { todo } }));
        // By title: the answer a title nobody has gets, word for word.
        const byTitle = await get("Bob's milk secret");
        const nobody = await get("Nobody's todo");
        assert.match(byTitle.message, /not_found/);
        assert.equal(byTitle.message.replace("Bob's milk secret", "Nobody's todo"), nobody.message);
        // By id: not found, and nothing of the record.
        const byId = await get(bobsId);
        assert.match(byId.message, /not_found/);
        assert.doesNotMatch(byId.message, /milk|secret/);
      });

      test("arguments the prompt refuses, and unknown or unseen prompts, are -32602", async () => {
        const missing = await errorOf(() => client.getPrompt({ name: "review_todo" }));
        assert.equal(missing.code, -32602);
        assert.match(missing.message, /todo/);
        const unknownArg = await errorOf(() =>
          client.getPrompt({ name: "review_todo", arguments: { todo: "Buy milk", extra: "x" } }),
        );
        assert.equal(unknownArg.code, -32602);
        const badEnum = await errorOf(() =>
          client.getPrompt({ name: "greet", arguments: { tone: "rude" } }),
        );
        assert.equal(badEnum.code, -32602);
        const unknown = await errorOf(() => client.getPrompt({ name: "no_such_prompt" }));
        assert.equal(unknown.code, -32602);
        // A prompt the caller does not see answers exactly as one that does not exist.
        const unseen = await errorOf(() => client.getPrompt({ name: "audit_report" }));
        assert.equal(unseen.code, -32602);
        assert.equal(unseen.message.replace("audit_report", "no_such_prompt"), unknown.message);
        const seen = await rootClient.getPrompt({ name: "audit_report" });
        assert.equal(seen.messages[0]?.content.text, "Report.");
      });

      test("completing `todo` offers only the caller's own titles", async () => {
        const complete = async (who: PromptClient, value: string) =>
          (
            await who.complete({
              ref: { type: "ref/prompt", name: "review_todo" },
              argument: { name: "todo", value },
            })
          ).completion.values;
        assert.deepEqual(await complete(client, "milk"), ["Buy milk"]);
        assert.deepEqual(await complete(client, "WALK"), ["Walk the dog"]);
        assert.deepEqual((await complete(client, "")).sort(), [
          "Buy milk",
          "Call mum",
          "Walk the dog",
        ]);
        // Bob's title matches "milk" and "secret": it never appears to Alice.
        assert.deepEqual(await complete(client, "secret"), []);
        assert.ok(!(await complete(client, "")).some((v) => v.includes("Bob")));
        // Root has no todos; Bob sees only his.
        assert.deepEqual(await complete(rootClient, "milk"), []);
      });

      test("an enum completes to its values, a function runs as the caller", async () => {
        const tone = await client.complete({
          ref: { type: "ref/prompt", name: "greet" },
          argument: { name: "tone", value: "f" },
        });
        assert.deepEqual(tone.completion.values, ["formal", "friendly", "funny"]);
        const fu = await client.complete({
          ref: { type: "ref/prompt", name: "greet" },
          argument: { name: "tone", value: "FU" },
        });
        assert.deepEqual(fu.completion.values, ["funny"]);
        const name = await client.complete({
          ref: { type: "ref/prompt", name: "greet" },
          argument: { name: "name", value: "ann" },
        });
        assert.deepEqual(name.completion.values, [`ann-${alice.userId}`]);
        // An unseen prompt completes to nothing.
        const unseen = await client.complete({
          ref: { type: "ref/prompt", name: "audit_report" },
          argument: { name: "x", value: "" },
        });
        assert.deepEqual(unseen.completion.values, []);
      });
    });
  }

  test("prompts/get and a completion function spend the caller's tool-call points", async () => {
    const limited = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: "prompts-limit-secret" } },
      rateLimit: { store: "memory", toolCalls: { points: 2, duration: 60 } },
    }).register(todoRouter());
    const limitedApp = registerExamplePrompts(limited).build();
    const carol = await signUp(limitedApp, "carol");
    const get = (id: number) =>
      request(limitedApp)
        .post("/mcp")
        .set("Authorization", `Bearer ${carol.token}`)
        .set("Accept", "application/json, text/event-stream")
        .send({ jsonrpc: "2.0", id, method: "prompts/get", params: { name: "plan_my_day" } });
    assert.equal((await get(1)).status, 200);
    assert.equal((await get(2)).status, 200);
    const refused = await get(3);
    assert.equal(refused.status, 429, refused.text.slice(0, 200));
    assert.match(refused.body.error.message, /rate_limited/);
    assert.ok(refused.headers["retry-after"]);
  });

  test("names are portable and unique, and a completion names a field the tools show", () => {
    const messages = () => [{ role: "user" as const, content: "x" }];
    const fresh = () => new TerrenoApp({ userModel: User, auth: { jwt: { secret: "names" } } });
    assert.throws(() => fresh().prompt("Review-Todo", { description: "x", messages }), /portable/);
    assert.throws(
      () => fresh().prompt(`p${"x".repeat(48)}`, { description: "x", messages }),
      /at most 48/,
    );
    const twice = fresh()
      .register(todoRouter())
      .prompt("same", { description: "x", messages })
      .prompt("same", { description: "x", messages });
    assert.throws(() => twice.build(), /duplicate prompt name "same"/);
    const hidden = fresh()
      .register(todoRouter())
      .prompt("peek", {
        description: "x",
        arguments: { note: z.string() },
        complete: { note: { model: "Todo", field: "internalNote" } },
        messages,
      });
    assert.throws(() => hidden.build(), /not a string field its tools show/);
  });

  test("getMCPPrompts offers the chat the same prompts, run as the user", async () => {
    const doc = await User.findById(alice.userId);
    assert.ok(doc);
    const user = toUser(doc);
    const prompts = await getMCPPrompts({ app: terreno, user });
    assert.deepEqual(
      prompts.map((p) => p.name),
      ["greet", "plan_my_day", "review_todo"],
    );
    const review = prompts.find((p) => p.name === "review_todo");
    const got = await review?.get({ todo: "Walk the dog" });
    assert.equal(got?.messages[0]?.role, "user");
    assert.match(String(got?.messages[0]?.content), /Review my todo "Walk the dog"/);
    await assert.rejects(review?.get({}) ?? Promise.resolve(), /Invalid input/);
  });
});
