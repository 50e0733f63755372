/**
 * The conformance fixture app: the fixtures the official MCP conformance suite expects of a
 * server (`test_simple_text`, `test_error_handling`, `test_simple_prompt`,
 * `test_prompt_with_arguments`), built only with the framework's public API (a user model,
 * `app.tool`, `app.prompt`, and a model router for resources and completions), so the suite's server scenarios run against the framework itself
 * rather than being skipped for want of a fixture. The fixtures the public API cannot express
 * (image, audio and embedded-resource content, static resources, sampling, elicitation,
 * logging, progress, ...) are listed with their reason in conformance-expected-failures.json.
 * scripts/interop.ts runs the conformance runners against it.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { User } from "../../example-backend/models/User.js";
import { foodRouter } from "../../example-backend/resources/foods.js";
import { defineErrorCode, TerrenoApp, TerrenoError } from "../../src/index.js";
import { findFreePort } from "../../src/testing/ferretdbServer.js";
import { signUpUser } from "./exampleServer.js";

/** test_error_handling's failure: a code whose failures a tool call reports as an `isError` result. */
const FIXTURE_ERROR = defineErrorCode("conformance_fixture_error", {
  status: 422,
  title: "Conformance Fixture Error",
  toolResult: true,
});

function createConformanceFixtureApp(options: { jwtSecret: string }): TerrenoApp {
  const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: options.jwtSecret } } });
  // A model with read and list tools: its records are the resource template
  // (terreno://foods/{id}) that resources/list, resources/read's not-found error and
  // completion/complete run against.
  app.register(foodRouter());
  app.tool("test_simple_text", {
    description: "Returns simple text content (the conformance fixture).",
    input: z.object({}),
    annotations: { readOnlyHint: true },
    handler: () => "This is a simple text response for testing.",
  });
  app.tool("test_error_handling", {
    description: "Always fails (the conformance fixture for tool errors).",
    input: z.object({}),
    annotations: { readOnlyHint: true },
    handler: () => {
      throw new TerrenoError(FIXTURE_ERROR, "This tool intentionally returns an error for testing");
    },
  });
  app.prompt("test_simple_prompt", {
    description: "A simple prompt without arguments (the conformance fixture).",
    messages: () => [{ role: "user", content: "This is a simple prompt for testing." }],
  });
  app.prompt("test_prompt_with_arguments", {
    description: "A prompt with two required arguments (the conformance fixture).",
    arguments: {
      arg1: z.string().describe("First test argument"),
      arg2: z.string().describe("Second test argument"),
    },
    messages: ({ arg1, arg2 }) => [
      { role: "user", content: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
    ],
  });
  return app;
}

export interface FixtureServer {
  /** Base URL; MCP is at `${url}/mcp`. */
  url: string;
  /** A signed-up user's bearer token (the conformance runners reach the app through the auth proxy). */
  token: string;
  close(): Promise<void>;
}

/**
 * Starts the fixture app on a free port of 127.0.0.1 over the database Mongoose is already
 * connected to (the example server's), with one signed-up user. Close it after the example
 * server's last use: closing a running app disconnects Mongoose.
 */
export async function startFixtureServer(): Promise<FixtureServer> {
  const port = await findFreePort();
  const running = await createConformanceFixtureApp({
    jwtSecret: randomBytes(32).toString("hex"),
  }).start({ port, host: "127.0.0.1", handleSignals: false, shutdownTimeoutMs: 2000 });
  try {
    const { token } = await signUpUser(running.url, "conformance");
    return { url: running.url, token, close: () => running.close() };
  } catch (error) {
    await running.close().catch(() => undefined);
    throw error;
  }
}
