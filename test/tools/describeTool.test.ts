/**
 * Honest tool descriptions (issue #12, item 4): create and update name only what a caller may
 * write, an update calls nothing required, nested objects are opened one level, and the
 * ranges, choices and lengths of the schema are said; Mixed values get a typed schema the core
 * accepts exactly.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import mongoose from "mongoose";
import { defineResource } from "../../src/core/resource.js";
import { assertPortable } from "../../src/schema/portability.js";
import { toolDefinitionsFor } from "../../src/tools/toolDefinitions.js";
import { SIGNED_IN } from "../helpers/permissions.js";

const m = new mongoose.Mongoose();
const Gadget = m.model(
  "Gadget",
  new m.Schema(
    {
      name: { type: String, required: true, minlength: 2, maxlength: 80 },
      status: { type: String, enum: ["draft", "live"], default: "draft" },
      quantity: { type: Number, min: 0, max: 10_000 },
      specs: { weight: { type: Number, min: 0 }, size: { w: Number, h: Number } },
      parts: [{ label: { type: String, maxlength: 20 } }],
      meta: m.Schema.Types.Mixed,
      internalCode: String,
      secret: { type: String, select: false },
      ownerId: { type: m.Schema.Types.ObjectId, ref: "User" },
    },
    { timestamps: true },
  ),
);
const resource = defineResource(Gadget, {
  permissions: SIGNED_IN,
  queryFields: ["name", "status"],
  readOnlyFields: ["ownerId"],
  mcp: {
    methods: ["list", "read", "create", "update", "delete"],
    excludeFields: ["internalCode"],
  },
});
const tools = Object.fromEntries(toolDefinitionsFor(resource).map((t) => [t.method, t]));
const fieldsOf = (description: string) =>
  // Top-level names in "Fields: a (…), b, c (… (…))." — nested parentheses skipped.
  [
    ...(description.split("Fields: ")[1] ?? "")
      .replace(/ Lengths count .*$/, "")
      .replace(/\([^()]*(\([^()]*\)[^()]*)*\)/g, "")
      .matchAll(/(\w+)/g),
  ].map((match) => match[1]);

describe("tool descriptions", () => {
  test("create and update name only writable fields; read names every visible one", () => {
    const writable = ["name", "status", "quantity", "specs", "parts", "meta"];
    assert.deepEqual(fieldsOf(tools.create.description), writable);
    assert.deepEqual(fieldsOf(tools.update.description), writable);
    for (const method of ["create", "update"]) {
      assert.doesNotMatch(tools[method].description, /ownerId|internalCode|secret|createdAt|__v/);
    }
    assert.match(tools.read.description, /ownerId \(User id\)/);
    assert.doesNotMatch(tools.read.description, /internalCode|secret/);
  });

  test("where a length is stated, its unit is too, once: UTF-16 units, as the model counts", () => {
    for (const method of ["create", "update"]) {
      const said = tools[method].description.match(
        /Lengths count UTF-16 units \(an emoji is 2\)\./g,
      );
      assert.equal(said?.length, 1, tools[method].description);
    }
    assert.doesNotMatch(tools.read.description, /UTF-16/);
  });

  test("an update calls nothing required; a create names what is", () => {
    assert.doesNotMatch(tools.update.description, /required/i);
    assert.match(tools.create.description, /name \(required; 2 to 80 chars\)/);
  });

  test("ranges, choices, lengths and defaults are said; objects open one level", () => {
    const create = tools.create.description;
    assert.match(create, /status \(draft\/live; default "draft"\)/);
    assert.match(create, /quantity \(0 to 10000\)/);
    assert.match(create, /specs \(weight \(≥0\), size\)/, "size is named, not opened");
    assert.match(create, /parts \(each label \(≤20 chars\)/, "list items open like objects");
  });

  test("the list tool's description leaves filter, sort and paging to its schema", () => {
    assert.equal(tools.list.description, "List Gadget documents you may see.");
    const { filter, sort, limit } = tools.list.inputSchema.properties ?? {};
    assert.ok(filter?.description && sort?.description && limit?.description);
  });
});

describe("Mixed values", () => {
  const meta = resource.views.tools.createSchema.properties?.meta;

  test("are typed: every branch names a JSON type, and the schema stays portable", () => {
    assert.ok(meta?.anyOf, "not a bare {}");
    for (const branch of meta.anyOf ?? []) assert.equal(typeof branch.type, "string");
    for (const tool of Object.values(tools))
      assertPortable(tool.inputSchema, { closedObjects: true });
  });

  test("the core accepts exactly what the schema advertises", () => {
    const validate = resource.views.tools.validateCreate;
    for (const value of ["x", 3, true, { a: [1, { b: 2 }] }, ["x", 3, false, { a: 1 }], []]) {
      assert.deepEqual(validate({ name: "ok", meta: value }), { ok: true }, JSON.stringify(value));
    }
    for (const value of [[["nested"]], null]) {
      assert.equal(validate({ name: "ok", meta: value }).ok, false, JSON.stringify(value));
    }
  });
});
