/**
 * The system under test for the interop checks: the example app (example-backend) on a free
 * port of 127.0.0.1, over its own test database (MONGODB_URI when set, else a private
 * FerretDB), with one signed-up user whose bearer token the clients and the proxy use. Its
 * built-in OAuth authorization server is on, as in `npm run example`, with the app's URL as
 * issuer (so the port is chosen before the app is built).
 */
import { randomBytes } from "node:crypto";
import mongoose from "mongoose";
import { createExampleApp } from "../../example-backend/app.js";
import { connectDatabase } from "../../src/app/database.js";
import type { RunningServer } from "../../src/app/TerrenoApp.js";
import { createTestDatabase, type TestDatabase } from "../../src/testing/ferretdb.js";
import { findFreePort } from "../../src/testing/ferretdbServer.js";

/** The password of every user signed up here (the OAuth sign-in page asks for it). */
export const PASSWORD = "correct horse battery";

export interface SignedUpUser {
  email: string;
  token: string;
  userId: string;
}

export interface ExampleServer {
  /** Base URL of the app, e.g. `http://127.0.0.1:41234`; MCP is at `${url}/mcp`. */
  url: string;
  user: SignedUpUser;
  /** Signs up another user over REST. */
  signUp(name?: string): Promise<SignedUpUser>;
  close(): Promise<void>;
}

export async function signUpUser(baseUrl: string, name = "interop"): Promise<SignedUpUser> {
  const email = `${name}-${randomBytes(4).toString("hex")}@example.com`;
  const response = await fetch(new URL("/auth/signup", baseUrl), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD, name }),
  });
  const body = (await response.json()) as { data?: { token?: string; userId?: string } };
  if (response.status !== 201 || !body.data?.token || !body.data.userId) {
    throw new Error(`signup failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return { email, token: body.data.token, userId: body.data.userId };
}

/**
 * Starts the database and the example app. Pass an already started database to share one;
 * otherwise this creates (and `close()` drops or stops) its own.
 */
export async function startExampleServer(
  options: { database?: TestDatabase; name?: string } = {},
): Promise<ExampleServer> {
  const database = options.database ?? (await createTestDatabase(options.name ?? "interop"));
  const ownsDatabase = options.database === undefined;
  let running: RunningServer | undefined;
  try {
    await connectDatabase(database.uri);
    await Promise.all(Object.values(mongoose.models).map((model) => model.init()));
    const port = await findFreePort();
    running = await createExampleApp({
      jwtSecret: randomBytes(32).toString("hex"),
      env: {}, // no chat model, no JWT_SECRET from the environment: deterministic
      publicUrl: `http://127.0.0.1:${port}`,
    }).start({ port, host: "127.0.0.1", handleSignals: false, shutdownTimeoutMs: 2000 });
    const url = running.url;
    const user = await signUpUser(url);
    const server = running;
    return {
      url,
      user,
      signUp: (name) => signUpUser(url, name),
      async close() {
        await server.close(); // drains requests and disconnects Mongoose
        if (ownsDatabase) await database.close();
      },
    };
  } catch (error) {
    await running?.close().catch(() => undefined);
    await mongoose.disconnect().catch(() => undefined);
    if (ownsDatabase) await database.close().catch(() => undefined);
    throw error;
  }
}
