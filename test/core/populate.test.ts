/**
 * resolvePopulate builds each path's populate option once per view (issue #26: work done per
 * request that could be done once). The cache must never outlive what it was built from: a
 * router registered later for the referenced model still hides its fields, and a caller (or
 * Mongoose) editing the option it got cannot change the next call's.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { IsAuthenticated } from "../../src/core/permissions.js";
import { resolvePopulate } from "../../src/core/populate.js";
import { hiddenFieldsLookup } from "../../src/core/present.js";
import { defineResource, type Resource } from "../../src/core/resource.js";
import { STANDALONE_SERVICES } from "../../src/tools/services.js";
import { buildTodoModel } from "../schema/fixtures.js";

const { Todo, User } = buildTodoModel();
const todos = defineResource(Todo, {
  permissions: { list: [IsAuthenticated] },
  populatePaths: [{ path: "ownerId" }],
});

describe("resolvePopulate: options built once, never stale", () => {
  it("hides the fields of a router registered after the first call", () => {
    const resources: Resource[] = [todos];
    const ctx = {
      services: { ...STANDALONE_SERVICES, hiddenOf: hiddenFieldsLookup(() => resources) },
    };
    const view = todos.views.tools;
    assert.deepEqual(resolvePopulate(view, undefined, Todo, ctx), [{ path: "ownerId" }]);
    resources.push(defineResource(User, { permissions: {}, mcp: { excludeFields: ["password"] } }));
    assert.deepEqual(resolvePopulate(view, undefined, Todo, ctx), [
      { path: "ownerId", select: "-password" },
    ]);
  });

  it("answers a copy: editing one call's option leaves the next call's alone", () => {
    const ctx = {
      services: { ...STANDALONE_SERVICES, hiddenOf: hiddenFieldsLookup(() => [todos]) },
    };
    const view = todos.views.rest;
    const [first] = resolvePopulate(view, undefined, Todo, ctx);
    first.select = "+password";
    assert.deepEqual(resolvePopulate(view, undefined, Todo, ctx), [{ path: "ownerId" }]);
  });
});
