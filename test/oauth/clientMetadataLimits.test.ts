/**
 * The outbound work a URL client_id can cause is bounded (issue 33.4): a per-address budget of
 * document fetches counted in the app's rate-limit store (MongoDB here), refused with 429 on the
 * token-side endpoints and with the problem page's own code at the authorization endpoint; and a
 * cap on the fetches in flight, over which a fetch is refused at once instead of holding one
 * more socket. The server log must show no 500 for any of it.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import mongoose from "mongoose";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import type { Logger } from "../../src/core/logger.js";
import {
  type ClientMetadataDocumentOptions,
  type OAuthServerPlugin,
  oauthServer,
} from "../../src/oauth/index.js";
import { RATE_LIMIT_COLLECTION } from "../../src/ops/rateLimit.js";
import { useTestDatabase } from "../helpers/database.js";
import { listenOn } from "../helpers/mcpClients.js";
import { User } from "../helpers/models.js";
import { authorizeRedirect, authorizeUrl } from "../helpers/oauthFlow.js";
import { JWT_SECRET } from "../helpers/restApp.js";
import { json, useMetadataHost } from "./metadataHost.js";
import { CALLBACK, OAUTH_SECRET, pkce } from "./oauthApp.js";

useTestDatabase("oauth_client_metadata_limits");

interface LimitedServer {
  url: string;
  plugin: OAuthServerPlugin;
  /** Every error the app's logger reported (a 500 is reported there). */
  errors: unknown[];
  close(): Promise<void>;
}

/** An app with the OAuth server, its rate limits on the "mongo" store, and a recording logger. */
async function startServer(documents: ClientMetadataDocumentOptions): Promise<LimitedServer> {
  const server = createServer();
  const { url, close } = await listenOn(server);
  const errors: unknown[] = [];
  const logger: Logger = {
    ...console,
    error: (...args: unknown[]) => {
      errors.push(args);
    },
  } as Logger;
  const plugin = oauthServer({
    secret: OAUTH_SECRET,
    issuer: url,
    userModel: User,
    clientMetadataDocuments: documents,
  });
  const terreno = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    rateLimit: { store: "mongo" },
    logger,
  });
  terreno.register(plugin);
  const app = terreno.build();
  await terreno.rateLimits.ready();
  server.on("request", app);
  return {
    url,
    plugin,
    errors,
    close,
  };
}

const documentFor = (url: string) => ({
  client_id: url,
  client_name: "Limited client",
  redirect_uris: [CALLBACK],
  token_endpoint_auth_method: "none",
});

/** GET /oauth2/authorize for `clientId`: the status and where the browser is sent. */
async function authorize(base: string, clientId: string) {
  const url = authorizeUrl({
    base,
    clientId,
    codeChallenge: pkce().challenge,
    scope: "mcp:read",
    resource: null,
  });
  const { status, location } = await authorizeRedirect(url);
  return { status, location };
}

/** POST /oauth2/revoke naming `clientId`, as a public client does. */
async function revoke(base: string, clientId: string) {
  const response = await fetch(`${base}/oauth/oauth2/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: "some-token", client_id: clientId }).toString(),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe("the per-address budget of document fetches", () => {
  const LIMIT = 5;
  const host = useMetadataHost();
  let server: LimitedServer;
  let fetched = 0;

  before(async () => {
    server = await startServer({
      allowAddresses: ["127.0.0.1"],
      ca: [host.cert],
      timeoutMs: 3000,
      fetchesPerIp: { points: LIMIT, duration: 600 },
    });
  });
  after(() => server?.close());

  /** A new document URL served by the host, counted when fetched. */
  const newDocument = (name: string) => {
    const path = `/budget/${name}.json`;
    const url = `${host.origin}${path}`;
    host.route(path, (req, res) => {
      fetched++;
      json(documentFor(url))(req, res);
    });
    return url;
  };

  test("40 new URL client_ids from one address: at most the limit is fetched, the rest refused", async () => {
    const outcomes: string[] = [];
    for (let index = 0; index < 40; index++) {
      const { status, location } = await authorize(server.url, newDocument(`authorize-${index}`));
      assert.notEqual(status, 500);
      const error = location?.pathname.endsWith("/problem")
        ? location.searchParams.get("error")
        : location?.pathname;
      outcomes.push(String(error));
    }
    assert.equal(fetched, LIMIT, "only the budget's worth of documents was fetched");
    assert.deepEqual(
      outcomes.slice(0, LIMIT),
      Array(LIMIT).fill("/oauth/login"),
      "the first ones go on to sign-in",
    );
    assert.deepEqual(
      outcomes.slice(LIMIT),
      Array(40 - LIMIT).fill("client_metadata_rate_limited"),
      "the rest land on the problem page with the rate-limit code",
    );
    const page = await fetch(`${server.url}/oauth/problem?error=client_metadata_rate_limited`);
    assert.match(await page.text(), /Too many application descriptions/);
  });

  test("the revocation endpoint spends the same budget and answers 429 with Retry-After", async () => {
    const before = fetched;
    for (let index = 0; index < 10; index++) {
      const refused = await revoke(server.url, newDocument(`revoke-${index}`));
      assert.equal(refused.status, 429);
      assert.match(refused.retryAfter ?? "", /^[1-9]\d*$/);
      assert.equal(refused.body.client_metadata_error, "client_metadata_rate_limited");
    }
    assert.equal(fetched, before, "nothing more was fetched");
  });

  test("a client already fetched costs nothing: it still signs in", async () => {
    const { location } = await authorize(server.url, `${host.origin}/budget/authorize-0.json`);
    assert.equal(location?.pathname, "/oauth/login");
  });

  test("the counters are in MongoDB, where every instance sees them", async () => {
    const stored = await mongoose.connection.db
      ?.collection(RATE_LIMIT_COLLECTION)
      .find({ key: /oauth_cimd_fetch_ip/ })
      .toArray();
    assert.equal(stored?.length, 1, JSON.stringify(stored));
    assert.ok(Number(stored?.[0]?.points) >= LIMIT);
  });

  test("no 500 was logged", () => {
    assert.deepEqual(server.errors, []);
  });
});

describe("the cap on fetches in flight", () => {
  const host = useMetadataHost();
  let server: LimitedServer;

  before(async () => {
    server = await startServer({
      allowAddresses: ["127.0.0.1"],
      ca: [host.cert],
      timeoutMs: 1500,
      maxConcurrentFetches: 2,
      fetchesPerIp: false,
    });
  });
  after(() => server?.close());

  test("over the cap a fetch is refused at once, never sent; slots free up after", async () => {
    // Two documents that never answer hold both slots until the time limit.
    let arrived = 0;
    let bothArrived: () => void = () => {};
    const holding = new Promise<void>((resolve) => {
      bothArrived = resolve;
    });
    for (const name of ["slow-1", "slow-2"]) {
      host.route(`/cap/${name}.json`, () => {
        arrived++;
        if (arrived === 2) bothArrived();
      });
    }
    const held = ["slow-1", "slow-2"].map((name) =>
      authorize(server.url, `${host.origin}/cap/${name}.json`),
    );
    await holding;
    const url = `${host.origin}/cap/third.json`;
    host.route("/cap/third.json", json(documentFor(url)));
    const third = await authorize(server.url, url);
    assert.equal(third.location?.searchParams.get("error"), "client_metadata_unreachable");
    assert.equal(host.hits("/cap/third.json"), 0, "the third fetch was never sent");
    for (const result of await Promise.all(held)) {
      assert.equal(result.location?.searchParams.get("error"), "client_metadata_unreachable");
    }
    // Refused for this server's load, not the document's fault: not remembered as a failure.
    const again = await authorize(server.url, url);
    assert.equal(again.location?.pathname, "/oauth/login");
    assert.equal(host.hits("/cap/third.json"), 1);
    assert.deepEqual(server.errors, []);
  });
});
