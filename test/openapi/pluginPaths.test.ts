/**
 * Plugins contribute OpenAPI paths (issue 23, item 5): the chat's routes and the OAuth server's
 * public JSON endpoints are in `/openapi.json`, the document still validates as OpenAPI 3.1, and
 * a plugin never replaces a router's operation.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileErrors, validate } from "@readme/openapi-parser";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { createDemoModel } from "../../src/chat/demo.js";
import type { TerrenoPlugin } from "../../src/index.js";
import { useTestDatabase } from "../helpers/database.js";
import { JWT_SECRET } from "../helpers/restApp.js";

// The OAuth server's metadata is built by its library, on a connected database.
useTestDatabase("openapi_plugins");

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is open JSON.
type Doc = Record<string, any>;

async function documentOf(plugins: TerrenoPlugin[] = []): Promise<Doc> {
  const app = createExampleApp({
    jwtSecret: JWT_SECRET,
    env: {},
    model: createDemoModel(),
    publicUrl: "http://127.0.0.1:4000",
  });
  for (const plugin of plugins) app.register(plugin);
  const res = await request(app.build()).get("/openapi.json");
  assert.equal(res.status, 200);
  const document = res.body as Doc;
  const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
  assert.ok(result.valid, result.valid ? "" : compileErrors(result));
  assert.deepEqual(result.warnings, []);
  return document;
}

describe("plugins' OpenAPI paths", () => {
  test("the chat's routes are documented, each needing a signed-in caller", async () => {
    const document = await documentOf();
    const expected: Array<[string, string]> = [
      ["/chat", "post"],
      ["/chat/info", "get"],
      ["/chat/approvals", "get"],
      ["/chat/telemetry", "get"],
      ["/chat/conversations", "get"],
      ["/chat/conversations", "post"],
      ["/chat/conversations/{id}", "get"],
      ["/chat/conversations/{id}", "patch"],
      ["/chat/conversations/{id}", "delete"],
      ["/chat/conversations/{id}/messages", "get"],
      ["/chat/feedback", "get"],
      ["/chat/feedback", "post"],
      ["/chat/feedback/{id}", "get"],
      ["/chat/feedback/{id}", "delete"],
      // The example turns MCP Apps on, so the chat serves their views and calls.
      ["/chat/apps", "get"],
      ["/chat/apps/{tool}", "get"],
      ["/chat/app-calls", "post"],
      ["/chat/app-calls/{toolCallId}", "post"],
      // A reply that survives a reload: reattach to the running turn, or stop it.
      ["/chat/{id}/stream", "get"],
      ["/chat/{id}/stream", "delete"],
    ];
    for (const [path, method] of expected) {
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${method.toUpperCase()} ${path}`);
      assert.deepEqual(operation.tags, ["Chat"]);
      assert.ok(operation.responses["401"], `${path} answers 401`);
      assert.ok(!operation.security?.some((s: object) => Object.keys(s).length === 0));
    }
    assert.ok(document.paths["/chat"].post.responses["200"].content["text/event-stream"]);
    assert.ok(document.components.schemas.ChatApprovalRequest);
    assert.ok(document.components.schemas.ChatAppView);
    assert.ok(document.paths["/chat/app-calls"].post.responses["202"]);
    const resume = document.paths["/chat/{id}/stream"].get.responses;
    assert.ok(resume["200"].content["text/event-stream"], "the replay streams");
    assert.ok(resume["204"], "no running turn");
    assert.ok(resume["503"].headers["Retry-After"], "the buffer is unreachable: retry");
    assert.ok(document.paths["/chat/{id}/stream"].delete.responses["204"]);
    assert.ok(document.tags.some((tag: Doc) => tag.name === "Chat" && tag.description));
  });

  test("the OAuth server's public JSON endpoints are documented; its HTML pages are not", async () => {
    const document = await documentOf();
    for (const [path, method] of [
      ["/.well-known/oauth-authorization-server", "get"],
      ["/.well-known/openid-configuration", "get"],
      ["/oauth/jwks", "get"],
      ["/oauth/oauth2/register", "post"],
      ["/oauth/oauth2/token", "post"],
    ]) {
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${method.toUpperCase()} ${path}`);
      assert.deepEqual(operation.security, [], `${path} is public`);
    }
    for (const [path, method] of [
      ["/oauth/oauth2/revoke", "post"],
      ["/oauth/oauth2/introspect", "post"],
    ]) {
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${method.toUpperCase()} ${path}`);
      // RFC 7009 §2.1, RFC 7662 §2.1: the client authenticates, with Basic or in the form body.
      assert.deepEqual(operation.security, [{ oauthClientBasic: [] }, {}], `${path}: the client`);
      assert.ok(operation.requestBody.content["application/x-www-form-urlencoded"], path);
    }
    assert.equal(document.components.securitySchemes.oauthClientBasic.scheme, "basic");
    assert.ok(
      !document.security.some((s: object) => "oauthClientBasic" in s || "oauthAccessToken" in s),
      "the client's credentials open no other route",
    );
    const userinfo = document.paths["/oauth/oauth2/userinfo"]?.get;
    assert.ok(userinfo, "GET /oauth/oauth2/userinfo");
    // Only this server's access tokens: not the app's sessions or personal tokens.
    assert.deepEqual(userinfo.security, [{ oauthAccessToken: [] }]);
    assert.equal(document.components.securitySchemes.oauthAccessToken.scheme, "bearer");
    const resourceMetadata = document.paths["/.well-known/oauth-protected-resource/mcp"]?.get;
    assert.ok(resourceMetadata, "GET /.well-known/oauth-protected-resource/mcp (RFC 9728)");
    assert.deepEqual(resourceMetadata.security, []);
    assert.equal(document.paths["/oauth/login"], undefined);
    assert.equal(document.paths["/oauth/consent"], undefined);
    // What the document says is what the server serves.
    const app = createExampleApp({
      jwtSecret: JWT_SECRET,
      env: {},
      model: createDemoModel(),
      publicUrl: "http://127.0.0.1:4000",
    }).build();
    const metadata = await request(app).get("/.well-known/oauth-authorization-server");
    assert.equal(metadata.status, 200);
    assert.equal(metadata.body.token_endpoint, "http://127.0.0.1:4000/oauth/oauth2/token");
    assert.equal(metadata.body.jwks_uri, "http://127.0.0.1:4000/oauth/jwks");
    assert.equal(
      metadata.body.registration_endpoint,
      "http://127.0.0.1:4000/oauth/oauth2/register",
    );
    assert.equal(metadata.body.revocation_endpoint, "http://127.0.0.1:4000/oauth/oauth2/revoke");
    assert.equal(
      metadata.body.introspection_endpoint,
      "http://127.0.0.1:4000/oauth/oauth2/introspect",
    );
    assert.equal(metadata.body.userinfo_endpoint, "http://127.0.0.1:4000/oauth/oauth2/userinfo");
    // Each answer is one the document lists, in the media type it lists.
    const documented = (path: string, method: string, res: request.Response) => {
      const response = document.paths[path][method].responses[String(res.status)];
      assert.ok(response, `${method.toUpperCase()} ${path} answered an undocumented ${res.status}`);
      const type = String(res.headers["content-type"]).split(";")[0];
      assert.ok(response.content?.[type], `${path} ${res.status} answered ${type}`);
      return response.content[type].schema;
    };
    for (const endpoint of ["revoke", "introspect"]) {
      const path = `/oauth/oauth2/${endpoint}`;
      const unknownClient = await request(app)
        .post(path)
        .type("form")
        .send({ token: "x", client_id: "nobody", client_secret: "wrong" });
      assert.equal(unknownClient.status, 400);
      assert.equal(unknownClient.body.error, "invalid_client");
      documented(path, "post", unknownClient);
      const anonymous = await request(app).post(path).type("form").send({ token: "x" });
      assert.equal(anonymous.status, 401);
      documented(path, "post", anonymous);
    }
    // Bodies over the OAuth routes' 64 KB limit: a documented 413, as JSON.
    for (const endpoint of ["revoke", "introspect", "token"]) {
      const path = `/oauth/oauth2/${endpoint}`;
      const huge = await request(app)
        .post(path)
        .type("form")
        .send(`token=${"x".repeat(70_000)}`);
      assert.equal(huge.status, 413, path);
      documented(path, "post", huge);
    }
    const hugeRegistration = await request(app)
      .post("/oauth/oauth2/register")
      .send({ redirect_uris: ["http://127.0.0.1:9/cb"], client_name: "x".repeat(70_000) });
    assert.equal(hugeRegistration.status, 413);
    documented("/oauth/oauth2/register", "post", hugeRegistration);
    const registerBody =
      document.paths["/oauth/oauth2/register"].post.requestBody.content["application/json"].schema;
    assert.equal(registerBody.properties.client_name.maxLength, 200, "the server's own cap");
    for (const authorization of [undefined, "Bearer not-a-token"]) {
      const req = request(app).get("/oauth/oauth2/userinfo");
      const res = await (authorization ? req.set("Authorization", authorization) : req);
      assert.equal(res.status, 401);
      documented("/oauth/oauth2/userinfo", "get", res);
    }
    const prm = await request(app).get("/.well-known/oauth-protected-resource/mcp");
    assert.equal(prm.status, 200);
    const schema = documented("/.well-known/oauth-protected-resource/mcp", "get", prm);
    const resolved = schema.$ref
      ? document.components.schemas[schema.$ref.split("/").pop()]
      : schema;
    for (const field of resolved.required) assert.ok(field in prm.body, field);
    assert.equal(prm.body.resource, "http://127.0.0.1:4000/mcp");
  });

  test("a plugin's paths, schemas and tags join the document; a router's operation stays", async () => {
    const plugin: TerrenoPlugin = {
      name: "reports",
      openApi: (helpers) => ({
        tags: [{ name: "Reports", description: "Monthly reports." }],
        schemas: { Report: { type: "object", properties: { month: { type: "string" } } } },
        paths: {
          "/reports": {
            get: {
              tags: ["Reports"],
              operationId: "reportsList",
              summary: "The reports",
              responses: {
                "200": {
                  description: "The reports.",
                  content: {
                    "application/json": {
                      schema: { type: "array", items: { $ref: "#/components/schemas/Report" } },
                    },
                  },
                },
                ...helpers.errors([401]),
              },
            },
          },
          // Tries to replace the Todo router's list: the router's stays.
          "/todos": {
            get: {
              operationId: "hijack",
              summary: "no",
              responses: { "200": { description: "no" } },
            },
          },
        },
      }),
    };
    const document = await documentOf([plugin]);
    assert.equal(document.paths["/reports"].get.operationId, "reportsList");
    assert.equal(
      document.paths["/reports"].get.responses["401"].$ref,
      "#/components/responses/Unauthorized",
    );
    assert.notEqual(document.paths["/todos"].get.operationId, "hijack");
    assert.ok(document.components.schemas.Report);
    assert.deepEqual(
      document.tags.find((tag: Doc) => tag.name === "Reports"),
      { name: "Reports", description: "Monthly reports." },
    );
  });
});
