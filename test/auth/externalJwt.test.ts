/**
 * External identity providers: JWT access tokens of an issuer whose JWKS the test serves on
 * 127.0.0.1 with keys it generates. Valid tokens work on REST and with a real MCP client;
 * wrong audience, issuer, expiry, unknown key and a disallowed algorithm (HS256 with the public
 * key) are 401; `mcp:read` limits the caller to read-only tools; an unreachable JWKS is a 503.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, describe, test } from "node:test";
import type { Express } from "express";
import {
  type CryptoKey,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from "jose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { externalJwtProvider, scopesFromStandardClaims } from "../../src/auth/externalJwt.js";
import { toUser } from "../../src/auth/userPlugin.js";
import type { User as Caller } from "../../src/core/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { useTestDatabase } from "../helpers/database.js";
import {
  CLIENT_KINDS,
  connectClient,
  type Listening,
  listen,
  listenOn,
} from "../helpers/mcpClients.js";
import { Todo, User } from "../helpers/models.js";
import { JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("auth_external_jwt");

const ISSUER = "https://idp.example.test/";
const RESOURCE = "https://api.example.test/mcp";
const ACCEPT = "application/json, text/event-stream";

interface Jwks {
  url: string;
  close(): Promise<void>;
}

async function serveJwks(keys: JWK[]): Promise<Jwks> {
  const server: Server = createServer((req, res) => {
    if (req.url !== "/jwks") {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ keys }));
  });
  const { url, close } = await listenOn(server);
  return { url: `${url}/jwks`, close };
}

/** The app's user for verified claims: found by email, created on first sight. */
async function userFromClaims(claims: JWTPayload): Promise<Caller | undefined> {
  const email = typeof claims.email === "string" ? claims.email.toLowerCase() : undefined;
  if (!email) return undefined;
  const existing = await User.findOne({ email: { $eq: email } }).exec();
  return toUser(existing ?? (await User.create({ email, name: String(claims.name ?? email) })));
}

describe("external identity provider (JWT access tokens, remote JWKS)", () => {
  let jwks: Jwks;
  let app: Express;
  let server: Listening;
  let rsa: CryptoKey;
  let rsaPublic: CryptoKey;
  let ec: CryptoKey;
  let stranger: CryptoKey;

  before(async () => {
    const rsaPair = await generateKeyPair("RS256", { extractable: true });
    const ecPair = await generateKeyPair("ES256", { extractable: true });
    stranger = (await generateKeyPair("RS256")).privateKey;
    rsa = rsaPair.privateKey;
    rsaPublic = rsaPair.publicKey;
    ec = ecPair.privateKey;
    jwks = await serveJwks([
      { ...(await exportJWK(rsaPair.publicKey)), kid: "rsa-1", alg: "RS256", use: "sig" },
      { ...(await exportJWK(ecPair.publicKey)), kid: "ec-1", alg: "ES256", use: "sig" },
    ]);
    app = new TerrenoApp({
      userModel: User,
      auth: {
        jwt: { secret: JWT_SECRET },
        providers: [
          externalJwtProvider({
            issuer: ISSUER,
            jwksUri: jwks.url,
            audience: RESOURCE,
            userFromClaims,
          }),
        ],
      },
      mcp: { resourceUrl: RESOURCE, oauth: { authorizationServers: [ISSUER] } },
    })
      .register(modelRouter(Todo, todoOptions()))
      .build();
    server = await listen(app);
  });
  after(async () => {
    await server.close();
    await jwks.close();
  });

  interface TokenOptions {
    key?: CryptoKey | Uint8Array;
    alg?: string;
    kid?: string;
    iss?: string;
    aud?: string | string[];
    exp?: number;
    nbf?: number;
    claims?: JWTPayload;
    email?: string;
  }

  const now = () => Math.floor(Date.now() / 1000);

  function sign(options: TokenOptions = {}): Promise<string> {
    const alg = options.alg ?? "RS256";
    const jwt = new SignJWT({
      email: options.email ?? "ext-alice@example.com",
      name: "Ext Alice",
      ...options.claims,
    })
      .setProtectedHeader({ alg, kid: options.kid ?? (alg === "ES256" ? "ec-1" : "rsa-1") })
      .setIssuer(options.iss ?? ISSUER)
      .setSubject("idp|alice")
      .setAudience(options.aud ?? RESOURCE)
      .setIssuedAt()
      .setExpirationTime(options.exp ?? now() + 300);
    if (options.nbf !== undefined) jwt.setNotBefore(options.nbf);
    return jwt.sign(options.key ?? (alg === "ES256" ? ec : rsa));
  }

  const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

  function listTools(token: string) {
    return request(app)
      .post("/mcp")
      .set("Accept", ACCEPT)
      .set("Content-Type", "application/json")
      .set(auth(token))
      .send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
  }

  test("a valid token (RS256 or ES256) works on REST and with real MCP clients", async () => {
    for (const alg of ["RS256", "ES256"]) {
      const token = await sign({ alg });
      const res = await request(app)
        .post("/todos")
        .set(auth(token))
        .send({ title: `ext ${alg}` });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const user = await User.findOne({ email: "ext-alice@example.com" }).exec();
    assert.ok(user, "userFromClaims created the local user");
    const token = await sign();
    for (const kind of CLIENT_KINDS) {
      const client = await connectClient(kind, server.url, token);
      const names = (await client.listTools()).map((t) => t.name);
      assert.ok(names.includes("todos_create"), kind);
      const created = await client.callTool("todos_create", { title: `ext via ${kind}` });
      assert.ok(!created.isError, JSON.stringify(created));
      const listed = await client.callTool("todos_list", { filter: { title: `ext via ${kind}` } });
      assert.equal((listed.structuredContent?.data as unknown[] | undefined)?.length, 1, kind);
      await client.close();
    }
  });

  test("refused with 401 (and an invalid_token challenge on /mcp)", async () => {
    const hsWithPublicKey = new TextEncoder().encode(await exportSPKI(rsaPublic));
    const cases: Array<[string, Promise<string>, RegExp]> = [
      ["another audience", sign({ aud: "https://other.example.test/mcp" }), /another resource/],
      ["expired", sign({ exp: now() - 3600 }), /expired/],
      ["not valid yet", sign({ nbf: now() + 3600 }), /not valid yet/],
      ["another issuer", sign({ iss: "https://evil.example.test/" }), /invalid/],
      [
        "HS256 with the public key",
        sign({ alg: "HS256", key: hsWithPublicKey }),
        /invalid|algorithm/,
      ],
      ["unknown key", sign({ key: stranger, kid: "rsa-2" }), /invalid/],
      ["known kid, wrong key", sign({ key: stranger }), /invalid/],
      ["a user the app does not know", sign({ email: "" }), /No account/],
    ];
    for (const [name, pending, detail] of cases) {
      const token = await pending;
      const rest = await request(app).get("/todos").set(auth(token));
      assert.equal(rest.status, 401, `${name}: ${JSON.stringify(rest.body)}`);
      assert.match(rest.body.detail, detail, name);
      const mcp = await listTools(token);
      assert.equal(mcp.status, 401, name);
      const challenge = String(mcp.headers["www-authenticate"]);
      assert.match(challenge, /^Bearer error="invalid_token"/, name);
      assert.match(
        challenge,
        /resource_metadata="https:\/\/api\.example\.test\/\.well-known\/oauth-protected-resource\/mcp"/,
        name,
      );
    }
  });

  test("scopes: mcp:read sees and calls only read-only tools; mcp:write everything", async () => {
    const reader = await sign({ claims: { scope: "openid mcp:read" } });
    const client = await connectClient("v2-auto", server.url, reader);
    const tools = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["todos_list", "todos_read"]);
    await assert.rejects(client.callTool("todos_create", { title: "x" }), /Unknown tool/);
    await client.close();
    assert.equal((await request(app).get("/todos").set(auth(reader))).status, 200);
    const post = await request(app).post("/todos").set(auth(reader)).send({ title: "x" });
    assert.equal(post.status, 403);
    assert.equal(post.body.detail, "This token's scope is read-only.");

    // Entra-style `scp` claim, as an array here.
    const writer = await sign({ claims: { scp: ["mcp:write"] } });
    assert.equal(
      (await request(app).post("/todos").set(auth(writer)).send({ title: "w" })).status,
      201,
    );

    // Scopes that name neither read nor write grant nothing.
    const profileOnly = await sign({ claims: { scope: "openid profile" } });
    const none = await request(app).get("/todos").set(auth(profileOnly));
    assert.equal(none.status, 403);
    const noneList = await listTools(profileOnly);
    assert.deepEqual(noneList.body.result.tools, []);

    // An external token is not a session: it may not mint personal tokens.
    const mint = await request(app)
      .post("/auth/tokens")
      .set(auth(writer))
      .send({ name: "x", scope: "read" });
    assert.equal(mint.status, 403);
  });

  test("scope claim parsing", () => {
    assert.deepEqual(scopesFromStandardClaims({ scope: " a  b " }), ["a", "b"]);
    assert.deepEqual(scopesFromStandardClaims({ scp: "a b" }), ["a", "b"]);
    assert.deepEqual(scopesFromStandardClaims({ scp: ["a", 1, "b"] }), ["a", "b"]);
    assert.equal(scopesFromStandardClaims({}), undefined);
  });

  test("an unreachable JWKS is a 503 (the provider's outage), not a 401", async () => {
    const gone = await serveJwks([]);
    await gone.close();
    const broken = new TerrenoApp({
      userModel: User,
      auth: {
        providers: [
          externalJwtProvider({
            issuer: ISSUER,
            jwksUri: gone.url,
            audience: RESOURCE,
            userFromClaims,
          }),
        ],
      },
    })
      .register(modelRouter(Todo, todoOptions()))
      .build();
    const res = await request(broken)
      .get("/todos")
      .set(auth(await sign()));
    assert.equal(res.status, 503);
    assert.equal(res.body.code, "identity_provider_unavailable");
    assert.ok(res.headers["retry-after"]);
    const mcp = await request(broken)
      .post("/mcp")
      .set("Accept", ACCEPT)
      .set("Content-Type", "application/json")
      .set(auth(await sign()))
      .send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    assert.equal(mcp.status, 503);
    assert.equal(mcp.body.jsonrpc, "2.0");
    assert.equal(mcp.body.error.data.error.code, "identity_provider_unavailable");
  });

  test("configuration mistakes fail at start", () => {
    const base = {
      issuer: ISSUER,
      jwksUri: "https://idp.example.test/jwks",
      audience: RESOURCE,
      userFromClaims,
    };
    assert.throws(() => externalJwtProvider({ ...base, algorithms: ["RS256", "HS256"] }), /HS256/);
    assert.throws(() => externalJwtProvider({ ...base, algorithms: ["none"] }), /none/);
    assert.throws(() => externalJwtProvider({ ...base, audience: "" }), /audience/);
    assert.throws(() => externalJwtProvider({ ...base, audience: [] }), /audience/);
  });
});
