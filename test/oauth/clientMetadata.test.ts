/**
 * Client ID Metadata Documents end to end: the official MCP SDK clients (v1 and v2) sign in with
 * a `clientMetadataUrl` served over https by a local test host (self-signed certificate trusted
 * through the `ca` option, 127.0.0.1 through the allow list), get a token and call a tool. Then
 * each refusal (http URL, another client_id, an unlisted redirect URI) lands on the server's
 * problem page with its own code, and registers nothing, while every failure of the fetch itself
 * (private address, oversize document, redirect, timeout, error status) is one code with one
 * message, so the answer does not tell which ports are open; and the document's Cache-Control
 * decides when it is fetched again, within a floor.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { useTestDatabase } from "../helpers/database.js";
import { authorizeRedirect, authorizeUrl } from "../helpers/oauthFlow.js";
import { signInAndConsent } from "./httpFlow.js";
import { MemoryOAuthState } from "./memoryOAuthState.js";
import { json, useMetadataHost } from "./metadataHost.js";
import { CALLBACK, PASSWORD, pkce, useOAuthApp } from "./oauthApp.js";

useTestDatabase("oauth_client_metadata");

const EMAIL = "cimd@example.com";

/** The document a client serves at `url`. */
const documentFor = (url: string, extra: Record<string, unknown> = {}) => ({
  client_id: url,
  client_name: "CIMD test client",
  redirect_uris: [CALLBACK],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
  ...extra,
});

/** An OAuthClientProvider as hosted clients run one: no registration, a URL as client_id. */
class MetadataUrlProvider extends MemoryOAuthState<
  { client_id: string },
  { access_token: string; token_type: string }
> {
  constructor(readonly clientMetadataUrl: string) {
    super();
  }
  get redirectUrl() {
    return CALLBACK;
  }
  get clientMetadata() {
    return documentFor(this.clientMetadataUrl);
  }
}

interface Sdk {
  connect(provider: MetadataUrlProvider): Promise<void>;
  finishAuth(code: string, iss: string): Promise<void>;
  callTool(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean }>;
  close(): Promise<void>;
}

function sdkClient(kind: "v1" | "v2", mcpUrl: string, provider: MetadataUrlProvider): Sdk {
  const endpoint = new URL(mcpUrl);
  if (kind === "v1") {
    const client = new ClientV1({ name: "cimd-v1", version: "1.0.0" });
    const transport = new TransportV1(endpoint, { authProvider: provider as never });
    return {
      connect: () => client.connect(transport),
      finishAuth: (code) => transport.finishAuth(code),
      callTool: async (name, args) =>
        (await client.callTool({ name, arguments: args })) as { isError?: boolean },
      close: () => client.close(),
    };
  }
  const client = new ClientV2({ name: "cimd-v2", version: "1.0.0" });
  const transport = new TransportV2(endpoint, { authProvider: provider as never });
  return {
    connect: () => client.connect(transport),
    finishAuth: (code, iss) => transport.finishAuth(code, iss),
    callTool: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as { isError?: boolean },
    close: () => client.close(),
  };
}

describe("Client ID Metadata Documents", () => {
  const host = useMetadataHost();
  const server = useOAuthApp(
    () => ({
      clientMetadataDocuments: {
        allowAddresses: ["127.0.0.1"],
        ca: [host.cert],
        timeoutMs: 3000,
        // This suite fetches many documents from one address; the budget has its own tests.
        fetchesPerIp: false,
      },
    }),
    EMAIL,
  );

  const storedClient = async (clientId: string) => {
    const { adapter } = await server.plugin.auth().$context;
    return adapter.findOne({
      model: "oauthClient",
      where: [{ field: "clientId", value: clientId }],
    });
  };

  /** Where the authorization endpoint sends the browser for this client_id and redirect_uri. */
  const authorize = async (clientId: string, redirectUri = CALLBACK): Promise<string> => {
    const { status, location, body } = await authorizeRedirect(
      authorizeUrl({
        base: server.url,
        clientId,
        redirectUri,
        codeChallenge: pkce().challenge,
        scope: "mcp:read",
        resource: null,
      }),
    );
    assert.ok(location, `a redirect, got ${status} ${body}`);
    return location.href;
  };

  test("the metadata advertises client_id_metadata_document_supported", async () => {
    const response = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
    const metadata = (await response.json()) as Record<string, unknown>;
    assert.equal(metadata.client_id_metadata_document_supported, true);
    assert.ok(metadata.registration_endpoint, "dynamic registration stays on by default");
  });

  for (const kind of ["v1", "v2"] as const) {
    test(`the MCP SDK ${kind} client signs in with a clientMetadataUrl and calls a tool`, async () => {
      const path = `/clients/${kind}.json`;
      const url = `${host.origin}${path}`;
      host.route(path, json(documentFor(url, { client_name: `Hosted ${kind}` })));
      const provider = new MetadataUrlProvider(url);
      const first = sdkClient(kind, server.mcpUrl, provider);
      await assert.rejects(first.connect(provider), /nauthorized/);
      assert.equal(provider.client?.client_id, url, "no registration: the URL is the client_id");
      const authorizationUrl = provider.authorizationUrl;
      assert.ok(authorizationUrl);
      assert.equal(authorizationUrl.searchParams.get("client_id"), url);

      let consentHtml = "";
      const landing = await signInAndConsent(authorizationUrl.href, {
        email: EMAIL,
        password: PASSWORD,
        onConsentPage: (html) => {
          consentHtml = html;
        },
      });
      assert.ok(landing.location?.startsWith(CALLBACK), `${landing.status} ${landing.body}`);
      // The consent heading names the host that serves the document, and says it is verified.
      assert.match(consentHtml, new RegExp(`id="consent-host">127\\.0\\.0\\.1:${host.port}<`));
      assert.match(consentHtml, /id="client-trust">verified</);
      assert.match(consentHtml, new RegExp(`id="client-name">Hosted ${kind}<`));
      const stored = (await storedClient(url)) as { clientDiscoveryId?: string } | null;
      assert.equal(stored?.clientDiscoveryId, "terreno-cimd");

      const callback = new URL(landing.location ?? "");
      await first.finishAuth(callback.searchParams.get("code") ?? "", server.url);
      assert.equal(provider.saved?.token_type?.toLowerCase(), "bearer");
      const client = sdkClient(kind, server.mcpUrl, provider);
      await client.connect(provider);
      const created = await client.callTool("todos_create", { title: `via CIMD ${kind}` });
      assert.notEqual(created.isError, true, JSON.stringify(created));
      await client.close();
    });
  }

  const refusals: Array<{
    name: string;
    code: string;
    message: RegExp;
    setup: () => { clientId: string; redirectUri?: string };
  }> = [
    {
      name: "an http client_id",
      code: "client_metadata_url",
      message: /must be an https address/,
      setup: () => {
        host.route("/refuse/http.json", json({}));
        return { clientId: `http://127.0.0.1:${host.port}/refuse/http.json` };
      },
    },
    {
      name: "a private address",
      code: "client_metadata_unreachable",
      message: /could not be fetched/,
      setup: () => ({ clientId: "https://10.0.0.7/client.json" }),
    },
    {
      name: "a loopback address not on the allow list",
      code: "client_metadata_unreachable",
      message: /could not be fetched/,
      setup: () => ({ clientId: `https://[::1]:${host.port}/refuse/v6.json` }),
    },
    {
      name: "a document naming another client_id",
      code: "client_metadata_mismatch",
      message: /names a different client/,
      setup: () => {
        const url = `${host.origin}/refuse/mismatch.json`;
        host.route("/refuse/mismatch.json", json(documentFor(`${url}?other`)));
        return { clientId: url };
      },
    },
    {
      name: "a document with an over-long client_name",
      code: "client_metadata_invalid",
      message: /not a valid client metadata document/,
      setup: () => {
        const url = `${host.origin}/refuse/long-name.json`;
        host.route(
          "/refuse/long-name.json",
          json(documentFor(url, { client_name: "n".repeat(1000) })),
        );
        return { clientId: url };
      },
    },
    {
      name: "a redirect_uri the document does not list",
      code: "client_metadata_redirect_uri",
      message: /does not list/,
      setup: () => {
        const url = `${host.origin}/refuse/redirect-uri.json`;
        host.route("/refuse/redirect-uri.json", json(documentFor(url)));
        return { clientId: url, redirectUri: "https://evil.test/landing" };
      },
    },
    {
      name: "an oversize document (streamed, no Content-Length)",
      code: "client_metadata_unreachable",
      message: /could not be fetched/,
      setup: () => {
        const url = `${host.origin}/refuse/large.json`;
        host.route("/refuse/large.json", (_req, res) => {
          res.writeHead(200, { "content-type": "application/json" });
          const padded = JSON.stringify(documentFor(url, { padding: "x".repeat(8000) }));
          for (let at = 0; at < padded.length; at += 1000) res.write(padded.slice(at, at + 1000));
          res.end();
        });
        return { clientId: url };
      },
    },
    {
      name: "a redirect response",
      code: "client_metadata_unreachable",
      message: /could not be fetched/,
      setup: () => {
        const url = `${host.origin}/refuse/moved.json`;
        host.route("/refuse/moved.json", (_req, res) => {
          res.writeHead(302, { location: `${host.origin}/clients/v1.json` }).end();
        });
        return { clientId: url };
      },
    },
    {
      name: "an error status",
      code: "client_metadata_unreachable",
      message: /could not be fetched/,
      setup: () => ({ clientId: `${host.origin}/refuse/not-there.json` }),
    },
    {
      name: "a body that is not JSON",
      code: "client_metadata_unreachable",
      message: /could not be fetched/,
      setup: () => {
        host.route("/refuse/html.json", (_req, res) => {
          res.writeHead(200, { "content-type": "text/html" }).end("<h1>hi</h1>");
        });
        return { clientId: `${host.origin}/refuse/html.json` };
      },
    },
    {
      name: "a host that never answers",
      code: "client_metadata_unreachable",
      message: /could not be fetched/,
      setup: () => {
        host.route("/refuse/slow.json", () => {});
        return { clientId: `${host.origin}/refuse/slow.json` };
      },
    },
  ];

  for (const refusal of refusals) {
    test(`refuses ${refusal.name} on the problem page, registering nothing`, async () => {
      const { clientId, redirectUri } = refusal.setup();
      const location = await authorize(clientId, redirectUri);
      assert.equal(location, `${server.url}/oauth/problem?error=${refusal.code}`);
      const page = await fetch(location);
      assert.equal(page.status, 400);
      assert.match(await page.text(), refusal.message);
      assert.equal(await storedClient(clientId), null, "no client was stored");
    });
  }

  test("every fetch failure gives the client the same answer: no port-scan oracle", async () => {
    host.route("/oracle/moved.json", (_req, res) => {
      res.writeHead(301, { location: `${host.origin}/clients/v1.json` }).end();
    });
    host.route("/oracle/large.json", (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end("x".repeat(6000));
    });
    const answers = new Set<string>();
    for (const clientId of [
      `${host.origin}/oracle/moved.json`,
      `${host.origin}/oracle/large.json`,
      `${host.origin}/oracle/missing.json`,
      // A closed port on an allowed address, and a refused (private) one.
      "https://127.0.0.1:1/oracle/closed.json",
      "https://10.0.0.7/oracle/private.json",
    ]) {
      const response = await fetch(`${server.url}/oauth/oauth2/revoke`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: "whatever", client_id: clientId }).toString(),
      });
      const body = (await response.json()) as Record<string, unknown>;
      const description = String(body.error_description).replace(clientId, "<url>");
      answers.add(`${response.status} ${body.error} ${body.client_metadata_error} ${description}`);
    }
    assert.equal(answers.size, 1, [...answers].join("\n"));
    assert.match([...answers][0], /^400 invalid_client client_metadata_unreachable /);
  });

  test("a failed fetch is remembered: the same URL is not fetched again at once", async () => {
    const url = `${host.origin}/remembered/missing.json`;
    for (let round = 0; round < 3; round++) {
      assert.equal(
        await authorize(url),
        `${server.url}/oauth/problem?error=client_metadata_unreachable`,
      );
    }
    assert.equal(host.hits("/remembered/missing.json"), 1);
  });

  test("a document is fetched again only when its Cache-Control says so", async () => {
    const cached = `${host.origin}/cache/max-age.json`;
    host.route(
      "/cache/max-age.json",
      json(documentFor(cached), { "cache-control": "max-age=600" }),
    );
    const uncached = `${host.origin}/cache/no-store.json`;
    host.route(
      "/cache/no-store.json",
      json(documentFor(uncached), { "cache-control": "no-store" }),
    );
    for (let round = 0; round < 2; round++) {
      assert.match(await authorize(cached), /\/oauth\/login\?/);
      assert.match(await authorize(uncached), /\/oauth\/login\?/);
    }
    assert.equal(host.hits("/cache/max-age.json"), 1, "max-age=600: fetched once");
    assert.equal(
      host.hits("/cache/no-store.json"),
      1,
      "no-store: reused for the floor (minCacheSeconds), not fetched on every request",
    );
  });
});

describe("Client ID Metadata Documents switched off", () => {
  const server = useOAuthApp({ clientMetadataDocuments: false });

  test("the metadata does not advertise them and a URL client_id is unknown", async () => {
    const response = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
    const metadata = (await response.json()) as Record<string, unknown>;
    assert.equal(metadata.client_id_metadata_document_supported, undefined);
    assert.ok(metadata.registration_endpoint);
    const query = new URLSearchParams({
      response_type: "code",
      client_id: "https://client.example/metadata.json",
      redirect_uri: CALLBACK,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    });
    const response2 = await fetch(`${server.url}/oauth/oauth2/authorize?${query}`, {
      redirect: "manual",
    });
    const body = await response2.text();
    const location = response2.headers.get("location") ?? (JSON.parse(body) as { url: string }).url;
    assert.equal(new URL(location, server.url).searchParams.get("error"), "invalid_client");
  });
});
