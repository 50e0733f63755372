/**
 * Client interop in the main suite: the SDK v1 client, the SDK v2 client (auto and legacy) and
 * the AI SDK's createMCPClient each list all of the example app's tools and call each one.
 * (The conformance runners and the Inspector CLI run only in `npm run test:interop`.)
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { checkClient, createFood, EXAMPLE_TOOLS, INTEROP_CLIENTS } from "./clientChecks.js";
import { type ExampleServer, startExampleServer } from "./exampleServer.js";

describe("MCP clients against the example app", () => {
  let server: ExampleServer;
  let foodId: string;

  before(async () => {
    server = await startExampleServer({ name: "interop_clients" });
    foodId = await createFood(server.url, server.user.token, "Apple");
  });
  after(async () => {
    await server?.close();
  });

  for (const { kind, label } of INTEROP_CLIENTS) {
    test(`${label}: lists every tool and calls each one`, async () => {
      const result = await checkClient(kind, server.url, server.user.token, foodId);
      assert.deepEqual(result.called, [...EXAMPLE_TOOLS]);
    });
  }
});
