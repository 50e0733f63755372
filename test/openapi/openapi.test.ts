/**
 * GET /openapi.json: a valid OpenAPI 3.1 document (checked by @readme/openapi-parser) whose
 * paths are exactly the registered routers' enabled methods, whose bodies are the REST view's
 * own schemas, and which never names a hidden field.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileErrors, validate } from "@readme/openapi-parser";
import request from "supertest";
import { z } from "zod";
import { createExampleApp } from "../../example-backend/app.js";
import { CRUD_METHODS, type CrudMethod } from "../../src/core/types.js";
import { IsAdmin, IsAny, IsAuthenticated, modelRouter, TerrenoApp } from "../../src/index.js";
import { Food, Todo, User } from "../helpers/models.js";
import { SIGNED_IN } from "../helpers/permissions.js";
import { JWT_SECRET } from "../helpers/restApp.js";

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is open JSON.
type Doc = Record<string, any>;

const HTTP_METHOD: Record<CrudMethod, { item: boolean; verb: string }> = {
  list: { item: false, verb: "get" },
  create: { item: false, verb: "post" },
  read: { item: true, verb: "get" },
  update: { item: true, verb: "patch" },
  delete: { item: true, verb: "delete" },
};

function testApp(options: ConstructorParameters<typeof TerrenoApp>[0] = {}): TerrenoApp {
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    mcp: { name: "openapi-test", version: "1.2.3" },
    ...options,
  });
  // Everything enabled, with a filter, populate and an action.
  app.register(
    modelRouter(Todo, {
      permissions: SIGNED_IN,
      queryFields: ["title", "priority", "dueDate"],
      populatePaths: [{ path: "ownerId" }],
      readOnlyFields: ["ownerId"],
      actions: {
        complete: {
          scope: "instance",
          description: "Marks the todo done.",
          permissions: [IsAuthenticated],
          input: z.object({ note: z.string().max(100).optional() }),
          handler: (_ctx, doc) => doc,
        },
      },
    }),
  );
  // Read-only: no create, update or delete routes.
  app.register(modelRouter(Food, { permissions: { list: [IsAny], read: [IsAny] } }));
  // A user directory: `passwordHash` is `select: false` and must appear nowhere.
  app.register(
    "/people",
    modelRouter(User, {
      permissions: { list: [IsAdmin], read: [IsAdmin], update: [IsAdmin] },
    }),
  );
  return app;
}

async function fetchDocument(app: TerrenoApp): Promise<Doc> {
  const res = await request(app.build()).get("/openapi.json");
  assert.equal(res.status, 200);
  assert.match(res.headers["content-type"], /application\/json/);
  return res.body as Doc;
}

describe("OpenAPI document", () => {
  test("validates as OpenAPI 3.1 with @readme/openapi-parser", async () => {
    for (const app of [testApp(), createExampleApp({ jwtSecret: JWT_SECRET, env: {} })]) {
      const document = await fetchDocument(app);
      assert.equal(document.openapi, "3.1.0");
      // validate() dereferences in place: give it a copy.
      const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
      assert.ok(result.valid, result.valid ? "" : compileErrors(result));
      assert.deepEqual(result.warnings, []);
    }
  });

  test("info comes from the options, servers are relative", async () => {
    const document = await fetchDocument(testApp());
    assert.deepEqual(document.info, { title: "openapi-test", version: "1.2.3" });
    assert.deepEqual(document.servers, [{ url: "/" }]);
    const custom = await fetchDocument(
      testApp({ openapi: { title: "Todos API", version: "9.0.0", description: "Hello." } }),
    );
    assert.deepEqual(custom.info, { title: "Todos API", version: "9.0.0", description: "Hello." });
  });

  test("paths are exactly the registered routers' enabled REST methods", async () => {
    const app = testApp();
    const document = await fetchDocument(app);
    const mounts = [
      { path: "/todos", model: "Todo" },
      { path: "/foods", model: "Food" },
      { path: "/people", model: "User" },
    ];
    for (const { path, model } of mounts) {
      const resource = app.resources.find((r) => r.model.modelName === model);
      assert.ok(resource);
      const view = resource.views.rest;
      for (const method of CRUD_METHODS) {
        const { item, verb } = HTTP_METHOD[method];
        const operation = document.paths[item ? `${path}/{id}` : path]?.[verb];
        assert.equal(
          Boolean(operation),
          view.methods.has(method),
          `${verb.toUpperCase()} ${path}${item ? "/{id}" : ""} documented iff ${method} is enabled`,
        );
      }
    }
    assert.equal(document.paths["/foods/{id}"].patch, undefined);
    assert.equal(document.paths["/people"].post, undefined);
    assert.equal(document.paths["/people/{id}"].delete, undefined);
    assert.equal(document.paths["/todos/{id}"].delete.responses["204"].description, "Deleted.");
    // Nothing else than the resources, their action and the auth routes.
    const expected = [
      "/todos",
      "/todos/{id}",
      "/todos/{id}/complete",
      "/foods",
      "/foods/{id}",
      "/people",
      "/people/{id}",
      "/auth/signup",
      "/auth/login",
      "/auth/refresh_token",
      "/auth/logout",
      "/auth/password",
      "/auth/me",
      "/auth/tokens",
      "/auth/tokens/{id}",
    ];
    assert.deepEqual(Object.keys(document.paths).sort(), expected.sort());
  });

  test("request bodies are the REST view's own create and update schemas", async () => {
    const app = testApp();
    const document = await fetchDocument(app);
    const todo = app.resources.find((r) => r.model.modelName === "Todo");
    assert.ok(todo);
    const { schemas } = document.components;
    const create = document.paths["/todos"].post.requestBody.content["application/json"].schema;
    assert.deepEqual(create, { $ref: "#/components/schemas/TodoCreate" });
    assert.deepEqual(schemas.TodoCreate, todo.views.rest.createSchema);
    // The update body is the view's schema plus the record's `version`, which the core takes
    // out as the write's precondition before it validates the rest (issue #36).
    const { version, ...updateProperties } = schemas.TodoUpdate.properties;
    assert.deepEqual(
      { ...schemas.TodoUpdate, properties: updateProperties },
      todo.views.rest.updateSchema,
    );
    assert.equal(version.type, "integer");
    // readOnlyFields are not writable.
    assert.equal(schemas.TodoCreate.properties.ownerId, undefined);
  });

  test("versions: the document's version, ETag on reads and writes, If-Match and 412, If-None-Match and 304", async () => {
    const document = await fetchDocument(testApp());
    const item = document.paths["/todos/{id}"];
    assert.equal(document.components.schemas.Todo.properties.version.type, "integer");
    const header = (op: { parameters: Array<{ name: string; in: string }> }, name: string) =>
      op.parameters.some((p) => p.in === "header" && p.name === name);
    assert.ok(header(item.get, "If-None-Match"));
    assert.ok(item.get.responses["304"]);
    assert.ok(item.get.responses["200"].headers.ETag);
    assert.ok(item.patch.responses["200"].headers.ETag);
    assert.ok(document.paths["/todos"].post.responses["201"].headers.ETag);
    for (const op of [item.patch, item.delete]) {
      assert.ok(header(op, "If-Match"));
      assert.deepEqual(op.responses["412"], { $ref: "#/components/responses/PreconditionFailed" });
    }
    const errorBody = document.components.schemas.Error.properties;
    assert.ok(errorBody.version && errorBody.current, "a stale write's refusal is documented");
  });

  test("the update body allows JSON Merge Patch as well as JSON", async () => {
    const document = await fetchDocument(testApp());
    const content = document.paths["/todos/{id}"].patch.requestBody.content;
    assert.deepEqual(Object.keys(content).sort(), [
      "application/json",
      "application/merge-patch+json",
    ]);
    assert.deepEqual(content["application/merge-patch+json"].schema, {
      $ref: "#/components/schemas/TodoUpdate",
    });
  });

  test("hidden fields (select: false) appear in no schema", async () => {
    const document = await fetchDocument(testApp());
    const { schemas } = document.components;
    assert.ok(schemas.User.properties.email, "visible fields are documented");
    assert.equal(schemas.User.properties.passwordHash, undefined);
    assert.equal(schemas.UserUpdate.properties.passwordHash, undefined);
    assert.doesNotMatch(JSON.stringify(document), /passwordHash/);
  });

  test("list: query parameters for paging, sorting, populate and each filterable field", async () => {
    const document = await fetchDocument(testApp());
    const list = document.paths["/todos"].get;
    const byName = new Map(list.parameters.map((p: Doc) => [p.name, p]));
    for (const name of ["page", "limit", "sort", "populate", "title", "priority", "dueDate"]) {
      assert.ok(byName.has(name), `parameter ${name}`);
    }
    assert.equal(byName.has("internalNote"), false, "only queryFields are filterable");
    const priority = byName.get("priority") as Doc;
    assert.match(priority.description, /priority\[\$gte\]=/);
    assert.deepEqual(priority.schema, { type: "number" });
    assert.equal((byName.get("limit") as Doc).schema.maximum, 500);
    assert.deepEqual(list.responses["200"].content["application/json"].schema, {
      $ref: "#/components/schemas/TodoList",
    });
    assert.deepEqual(document.components.schemas.TodoList.required, [
      "data",
      "page",
      "limit",
      "total",
      "more",
    ]);
  });

  test("the error body is a shared component, with responses per status of the error table", async () => {
    const document = await fetchDocument(testApp({ rateLimit: {} }));
    const { schemas, responses } = document.components;
    assert.deepEqual(schemas.Error.required, ["status", "title", "detail", "code"]);
    const statuses: Record<string, number> = {
      BadRequest: 400,
      Unauthorized: 401,
      Forbidden: 403,
      NotFound: 404,
      MethodNotAllowed: 405,
      Conflict: 409,
      TooManyRequests: 429,
    };
    for (const name of Object.keys(statuses)) {
      assert.deepEqual(responses[name].content["application/json"].schema, {
        $ref: "#/components/schemas/Error",
      });
    }
    assert.match(responses.BadRequest.description, /validation_failed/);
    assert.match(responses.TooManyRequests.description, /rate_limited/);
    const create = document.paths["/todos"].post.responses;
    assert.deepEqual(create["400"], { $ref: "#/components/responses/BadRequest" });
    assert.deepEqual(create["429"], { $ref: "#/components/responses/TooManyRequests" });
  });

  test("auth routes and security schemes", async () => {
    const document = await fetchDocument(testApp());
    const login = document.paths["/auth/login"].post;
    assert.deepEqual(login.security, []);
    assert.deepEqual(login.requestBody.content["application/json"].schema.required, [
      "email",
      "password",
    ]);
    assert.ok(document.paths["/auth/me"].get.responses["200"]);
    assert.equal(document.paths["/auth/me"].get.security, undefined, "needs a caller");
    const schemes = document.components.securitySchemes;
    assert.deepEqual(
      { type: schemes.bearerAuth.type, scheme: schemes.bearerAuth.scheme },
      { type: "http", scheme: "bearer" },
    );
    assert.equal(schemes.personalAccessToken.scheme, "bearer");
    assert.ok(document.paths["/auth/tokens"].post);

    const noTokens = await fetchDocument(
      testApp({ auth: { jwt: { secret: JWT_SECRET }, personalTokens: false } }),
    );
    assert.equal(noTokens.paths["/auth/tokens"], undefined);
    assert.equal(noTokens.components.securitySchemes.personalAccessToken, undefined);
  });

  test("actions are documented with their input schema", async () => {
    const document = await fetchDocument(testApp());
    const complete = document.paths["/todos/{id}/complete"].post;
    assert.equal(complete.description, "Marks the todo done.");
    const body = complete.requestBody.content["application/json"].schema;
    assert.equal(body.type, "object");
    assert.ok(body.properties.note);
  });

  test("custom tools are documented as POST /tools/<name> and the document still validates", async () => {
    const app = testApp({ rateLimit: { auth: false } });
    app.tool("todos_stats", {
      title: "Todo statistics",
      description: "Counts todos.",
      input: z.object({ since: z.string().max(30).optional() }),
      output: z.object({ count: z.number().int() }),
      annotations: { readOnlyHint: true },
      handler: () => ({ count: 0 }),
    });
    app.tool("archive_all", { description: "Archives everything.", handler: () => null });
    const document = await fetchDocument(app);
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
    assert.ok(result.valid, result.valid ? "" : compileErrors(result));
    assert.deepEqual(result.warnings, []);
    const stats = document.paths["/tools/todos_stats"].post;
    assert.deepEqual(stats.tags, ["Tools"]);
    assert.equal(stats.operationId, "todosStats");
    assert.equal(stats.summary, "Todo statistics");
    assert.match(stats.description, /^Counts todos\./);
    const def = app.toolDefinitions.find((tool) => tool.name === "todos_stats");
    assert.deepEqual(stats.requestBody.content["application/json"].schema, def?.inputSchema);
    assert.deepEqual(stats.responses["200"].content["application/json"].schema, def?.outputSchema);
    // Read-only: no write points spent, so no 429. An Idempotency-Key may answer 409 or 422.
    assert.deepEqual(Object.keys(stats.responses).sort(), [
      "200",
      "400",
      "401",
      "403",
      "404",
      "409",
      "422",
    ]);
    const archive = document.paths["/tools/archive_all"].post;
    assert.equal(archive.operationId, "archiveAll");
    assert.ok(archive.responses["429"]);
    assert.ok(document.tags.some((tag: { name: string }) => tag.name === "Tools"));
    // Without custom tools, no /tools paths and no Tools tag.
    const plain = await fetchDocument(testApp());
    assert.equal(
      Object.keys(plain.paths).some((path) => path.startsWith("/tools")),
      false,
    );
    assert.equal(
      plain.tags.some((tag: { name: string }) => tag.name === "Tools"),
      false,
    );
  });

  test("openapi: false serves neither the document nor the docs; paths are configurable", async () => {
    const off = testApp({ openapi: false }).build();
    assert.equal((await request(off).get("/openapi.json")).status, 404);
    assert.equal((await request(off).get("/docs/")).status, 404);
    const moved = testApp({ openapi: { path: "/api/spec.json", docsPath: false } }).build();
    assert.equal((await request(moved).get("/api/spec.json")).status, 200);
    assert.equal((await request(moved).get("/openapi.json")).status, 404);
    assert.equal((await request(moved).get("/docs/")).status, 404);
  });

  test("/docs redirects to /docs/ and serves the UI with its own CSP, assets from this server", async () => {
    const express = testApp().build();
    const redirect = await request(express).get("/docs");
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.location, "/docs/");
    const page = await request(express).get("/docs/");
    assert.equal(page.status, 200);
    assert.match(page.text, /swagger-ui-bundle\.js/);
    // No asset from another host (a CDN): scripts and styles are this server's.
    assert.doesNotMatch(page.text, /<(script|link)[^>]+(src|href)=["']?(https?:)?\/\//);
    const csp = page.headers["content-security-policy"];
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'/);
    const init = await request(express).get("/docs/swagger-ui-init.js");
    assert.equal(init.status, 200);
    assert.match(init.text, /"url": "\.\.\/openapi\.json"/);
    assert.match(init.text, /"validatorUrl": null/);
    const bundle = await request(express).get("/docs/swagger-ui-bundle.js");
    assert.equal(bundle.status, 200);
    // Elsewhere the strict default CSP stays.
    const json = await request(express).get("/openapi.json");
    assert.match(json.headers["content-security-policy"], /upgrade-insecure-requests/);
  });
});
