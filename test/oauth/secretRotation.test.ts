/**
 * Rotating the OAuth server's secret over an existing database: its signing keys were encrypted
 * with the old secret, and a restart with a new one used to answer 500 ("Failed to decrypt
 * private key") on the consent page and the token endpoint. With the old secret in
 * `previousSecrets` the key is kept (re-encrypted); without it the key is retired and a new one
 * made. Either way the whole flow works.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeProtectedHeader } from "jose";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { signAccessToken } from "../../src/auth/jwt.js";
import { oauthServer } from "../../src/oauth/index.js";
import { useTestDatabase } from "../helpers/database.js";
import { User } from "../helpers/models.js";
import { connectByOAuth, mcpStatusWith } from "../helpers/oauthFlow.js";
import { JWT_SECRET } from "../helpers/restApp.js";
import {
  OAUTH_SECRET,
  type OAuthTestServer,
  registerClient,
  signUp,
  startOAuthApp,
} from "./oauthApp.js";

useTestDatabase("oauth_secret_rotation");

const EMAIL = "rotation@example.com";
const ROTATED = "a-rotated-oauth-secret-of-at-least-32-characters";
const UNRELATED = "a-third-secret-nobody-passed-as-a-previous-one!!";

/** A new client's whole flow: sign-in, consent (shown, it is new), code, token, /mcp. */
async function flow(server: OAuthTestServer): Promise<string> {
  const client = await registerClient(server.url);
  const { accessToken } = await connectByOAuth({
    base: server.url,
    clientId: client,
    email: EMAIL,
    scope: "mcp:read",
  });
  assert.equal(await mcpStatusWith(server.url, accessToken), 200);
  return decodeProtectedHeader(accessToken).kid ?? "";
}

async function withServer<T>(
  options: Parameters<typeof startOAuthApp>[0],
  run: (server: OAuthTestServer) => Promise<T>,
): Promise<T> {
  const server = await startOAuthApp(options);
  try {
    return await run(server);
  } finally {
    await server.close();
  }
}

describe("rotating the OAuth server's secret", () => {
  test("a restart with a new secret keeps OAuth working: no 500, the key kept or replaced", async () => {
    const firstKid = await withServer({}, async (server) => {
      await signUp(server.url, EMAIL);
      return flow(server);
    });
    assert.ok(firstKid);
    // The old secret as a previous one: the same key signs on, re-encrypted.
    const keptKid = await withServer({ secret: ROTATED, previousSecrets: [OAUTH_SECRET] }, flow);
    assert.equal(keptKid, firstKid);
    // And again, now that the key is stored under ROTATED: nothing left to re-encrypt.
    assert.equal(await withServer({ secret: ROTATED }, flow), firstKid);
    // A secret the key was never encrypted with, no previous ones: a new key, and no 500.
    const newKid = await withServer({ secret: UNRELATED }, flow);
    assert.notEqual(newKid, firstKid);
  });

  test("a previous secret that is too short fails at start-up, naming the option", () => {
    assert.throws(
      () =>
        oauthServer({
          secret: ROTATED,
          previousSecrets: [OAUTH_SECRET, "short"],
          issuer: "http://127.0.0.1:4000",
          userModel: User,
        }),
      /previousSecrets\[1\] must be at least 32 characters/,
    );
  });
});

describe("rotating the app's JWT secret", () => {
  test("previousSecrets verify the tokens they signed, and never sign", async () => {
    const user = await User.create({ email: "rotation-jwt@example.com", passwordHash: "x" });
    const oldToken = signAccessToken({ secret: JWT_SECRET }, String(user._id));
    const appWith = (previousSecrets?: string[]) =>
      new TerrenoApp({
        userModel: User,
        auth: { jwt: { secret: ROTATED, previousSecrets } },
      }).build();
    const me = (app: ReturnType<typeof appWith>, token: string) =>
      request(app).get("/auth/me").set("Authorization", `Bearer ${token}`);
    assert.equal((await me(appWith([JWT_SECRET]), oldToken)).status, 200);
    assert.equal((await me(appWith(), oldToken)).status, 401);
    // Tokens it issues are signed with the current secret: the old one alone cannot verify them.
    const login = await request(appWith([JWT_SECRET]))
      .post("/auth/signup")
      .send({ email: "rotation-new@example.com", password: "correct horse battery" });
    assert.equal(login.status, 201, login.text);
    const oldOnly = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } });
    assert.equal((await me(oldOnly.build(), login.body.data.token)).status, 401);
  });

  test("the example refuses a bad JWT_PREVIOUS_SECRETS at start-up, naming it", () => {
    assert.throws(
      () => createExampleApp({ jwtSecret: JWT_SECRET, env: { JWT_PREVIOUS_SECRETS: "short" } }),
      /JWT_PREVIOUS_SECRETS: entry 1 is shorter than 32 characters/,
    );
    assert.throws(
      () =>
        createExampleApp({
          jwtSecret: JWT_SECRET,
          env: { JWT_PREVIOUS_SECRETS: ` ${JWT_SECRET}` },
        }),
      /JWT_PREVIOUS_SECRETS: entry 1 is the current JWT_SECRET/,
    );
  });
});
