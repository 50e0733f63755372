/**
 * Confirmations the client asks the person for (`mcp.confirm`): with the official SDK
 * clients, accepting runs the call, declining or cancelling writes nothing and says so, and a
 * client without elicitation calls the tool as before.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  type ClientKind,
  connectSdkClient,
  type ElicitAnswer,
  type Listening,
  listen,
} from "../helpers/mcpClients.js";
import { Food, Todo, User } from "../helpers/models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("mcp_confirm");

type Result = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: { data?: { deleted?: boolean } };
};

describe("confirmations through elicitation", () => {
  const base = todoOptions();
  const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
    .register(
      modelRouter(Todo, {
        ...base,
        mcp: { ...base.mcp, confirm: ["delete"] },
      }),
    )
    .register(modelRouter(Food, foodOptions()))
    .build();
  let server: Listening;
  let alice: TestUser;

  before(async () => {
    server = await listen(app);
    alice = await signUp(app, "alice");
  });
  after(() => server.close());

  const newTodo = async (title: string) =>
    (
      await request(app)
        .post("/todos")
        .set("Authorization", `Bearer ${alice.token}`)
        .send({ title })
        .expect(201)
    ).body.data.id as string;

  async function deleteWith(kind: ClientKind, answer: ElicitAnswer | undefined) {
    const id = await newTodo(`delete me ${kind}`);
    const asked: unknown[] = [];
    const client = await connectSdkClient(
      kind,
      server.url,
      alice.token,
      answer ? { answer: () => answer, asked } : undefined,
    );
    try {
      const result = (await client.callTool({ name: "todos_delete", arguments: { id } })) as Result;
      return {
        id,
        result,
        asked,
        exists: Boolean(await Todo.exists({ _id: id, deleted: { $ne: true } })),
      };
    } finally {
      await client.close();
    }
  }

  for (const kind of ["v2-auto"] as const) {
    describe(kind, () => {
      test("accepting runs the call", async () => {
        const { result, asked, exists } = await deleteWith(kind, {
          action: "accept",
          content: { confirm: true },
        });
        assert.equal(result.isError, undefined, JSON.stringify(result));
        assert.equal(result.structuredContent?.data?.deleted, true);
        assert.equal(exists, false);
        assert.equal(asked.length, 1);
        const question = asked[0] as { message: string; requestedSchema: unknown };
        assert.match(question.message, /^Delete a Todo\? \(id [0-9a-f]{24}\)$/);
      });

      for (const answer of [
        { action: "decline" },
        { action: "cancel" },
        { action: "accept", content: { confirm: false } },
      ] as ElicitAnswer[]) {
        test(`${JSON.stringify(answer)} writes nothing and says so`, async () => {
          const { result, asked, exists } = await deleteWith(kind, answer);
          assert.equal(asked.length, 1);
          assert.equal(result.isError, true);
          assert.match(result.content[0]?.text ?? "", /^not_confirmed: /);
          assert.equal(exists, true);
        });
      }
    });
  }

  for (const kind of ["v2-auto", "v2-legacy", "v1"] as const) {
    test(`${kind} without elicitation calls the tool as before`, async () => {
      const { result, exists } = await deleteWith(kind, undefined);
      assert.equal(result.structuredContent?.data?.deleted, true, JSON.stringify(result));
      assert.equal(exists, false);
    });
  }

  test("tools that are not confirmed are never asked about, and annotations stay", async () => {
    const asked: unknown[] = [];
    const client = await connectSdkClient("v2-auto", server.url, alice.token, {
      answer: () => ({ action: "decline" }),
      asked,
    });
    try {
      const created = (await client.callTool({
        name: "todos_create",
        arguments: { title: "no question" },
      })) as Result;
      assert.equal(created.isError, undefined);
      assert.equal(asked.length, 0);
      // A bad id is refused as before, without a question.
      const bad = (await client.callTool({
        name: "todos_delete",
        arguments: { id: "nope" },
      })) as Result;
      assert.equal(bad.isError, true);
      assert.equal(asked.length, 0);
      const { tools } = (await (
        client as unknown as { listTools(): Promise<{ tools: Array<Record<string, unknown>> }> }
      ).listTools()) as { tools: Array<{ name: string; annotations?: Record<string, unknown> }> };
      const del = tools.find((tool) => tool.name === "todos_delete");
      assert.equal(del?.annotations?.destructiveHint, true);
    } finally {
      await client.close();
    }
  });
});
