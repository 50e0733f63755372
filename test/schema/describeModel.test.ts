/**
 * describeModel: every Mongoose path shape maps to the expected FieldDescriptor, on real
 * Mongoose 9 schemas and on hand-built Mongoose 8 shapes.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeSchemaType } from "../../src/schema/describeFields.js";
import { describeModel, describeSchema } from "../../src/schema/describeModel.js";
import { buildTodoModel, freshMongoose } from "./fixtures.js";

describe("describeModel: the Todo model", () => {
  const { Todo } = buildTodoModel();
  const d = describeModel(Todo);

  it("names the model and lists system fields", () => {
    assert.equal(d.modelName, "Todo");
    assert.deepEqual(d.systemFields, ["_id", "__v", "createdAt", "updatedAt"]);
    assert.equal(d.softDelete, false);
    assert.equal(d.fields._id.system, true);
    assert.equal(d.fields.createdAt.kind, "date");
  });

  it("keeps schema order at the top level", () => {
    assert.deepEqual(Object.keys(d.fields), [
      "title",
      "completed",
      "dueDate",
      "tags",
      "internalNote",
      "ownerId",
      "priority",
      "status",
      "address",
      "items",
      "meta",
      "extra",
      "secret",
      "_id",
      "createdAt",
      "updatedAt",
      "__v",
    ]);
  });

  it("describes scalars with their constraints", () => {
    assert.deepEqual(d.fields.title, {
      path: "title",
      kind: "string",
      required: true,
      maxLength: 200,
    });
    assert.deepEqual(d.fields.completed, {
      path: "completed",
      kind: "boolean",
      required: false,
      default: false,
      hasDefault: true,
    });
    assert.deepEqual(d.fields.priority, {
      path: "priority",
      kind: "number",
      required: false,
      min: 1,
      max: 5,
    });
    assert.deepEqual(d.fields.status.enum, ["open", "closed"]);
    assert.deepEqual(d.fields.ownerId, {
      path: "ownerId",
      kind: "objectId",
      required: false,
      ref: "User",
    });
    assert.deepEqual(d.fields.secret, {
      path: "secret",
      kind: "string",
      required: false,
      selectFalse: true,
    });
  });

  it("rebuilds plain nested objects from dotted paths", () => {
    assert.deepEqual(d.fields.address, {
      path: "address",
      kind: "object",
      required: false,
      properties: {
        city: { path: "address.city", kind: "string", required: false },
        zip: { path: "address.zip", kind: "string", required: false, pattern: "^\\d{5}$" },
      },
    });
  });

  it("describes arrays of primitives and of subdocuments", () => {
    assert.deepEqual(d.fields.tags, {
      path: "tags",
      kind: "array",
      required: false,
      hasDefault: true,
      items: { path: "tags", kind: "string", required: false },
    });
    const items = d.fields.items.items;
    assert.equal(items?.kind, "object");
    assert.equal(items?.subdocument, true);
    assert.deepEqual(Object.keys(items?.properties ?? {}), ["name", "qty", "_id"]);
    assert.deepEqual(items?.properties?.name, {
      path: "items.name",
      kind: "string",
      required: true,
    });
    assert.equal(items?.properties?._id.system, true);
  });

  it("describes maps and mixed", () => {
    assert.deepEqual(d.fields.meta, {
      path: "meta",
      kind: "map",
      required: false,
      values: { path: "meta.$*", kind: "number", required: false },
    });
    assert.deepEqual(d.fields.extra, { path: "extra", kind: "mixed", required: false });
  });

  it("indexes every real path in byPath, nested and system ones included", () => {
    for (const path of [
      "title",
      "address",
      "address.city",
      "address.zip",
      "items",
      "items.name",
      "items._id",
      "_id",
      "__v",
    ]) {
      assert.ok(d.byPath.has(path), path);
    }
    assert.equal(d.byPath.get("items.qty")?.kind, "number");
    assert.equal(d.byPath.has("meta.$*"), false);
  });
});

describe("describeModel: path shapes", () => {
  it("reads required in all its forms; a function means conditional (not required)", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({
        a: { type: String, required: true },
        b: { type: String, required: [true, "b is needed"] },
        c: {
          type: String,
          required(): boolean {
            return true;
          },
        },
        d: { type: String, required: [() => true, "msg"] },
        e: { type: String, required: false },
        f: String,
      }),
      "R",
    );
    assert.deepEqual(
      ["a", "b", "c", "d", "e", "f"].map((name) => d.fields[name].required),
      [true, true, false, false, false, false],
    );
  });

  it("keeps only JSON-safe literal defaults", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({
        when: { type: Date, default: Date.now },
        fixedDate: { type: Date, default: new Date(0) },
        n: { type: Number, default: 3 },
        s: { type: String, default: "x" },
        list: { type: [String], default: ["a"] },
        noDefaultList: { type: [String], default: undefined },
      }),
      "D",
    );
    assert.equal(d.fields.when.default, undefined);
    assert.equal(d.fields.when.hasDefault, true);
    assert.equal(d.fields.fixedDate.default, undefined);
    assert.equal(d.fields.n.default, 3);
    assert.equal(d.fields.s.default, "x");
    assert.deepEqual(d.fields.list.default, ["a"]);
    assert.equal(d.fields.noDefaultList.hasDefault, undefined);
  });

  it("reads string and number constraints in their [value, message] and object forms", () => {
    const m = freshMongoose();
    enum Color {
      Red = "red",
      Blue = "blue",
    }
    const d = describeSchema(
      new m.Schema({
        s: {
          type: String,
          minLength: [2, "short"],
          maxlength: [9, "long"],
          match: [/^[a-z]+$/, "bad"],
        },
        i: { type: String, match: /^abc$/i },
        e: { type: String, enum: { values: ["a", "b", null], message: "nope" } },
        c: { type: String, enum: Color },
        n: { type: Number, min: [0, "low"], max: 10, enum: [0, 5, 10] },
        described: { type: String, description: "Shown to clients" },
      }),
      "C",
    );
    assert.deepEqual(d.fields.s, {
      path: "s",
      kind: "string",
      required: false,
      minLength: 2,
      maxLength: 9,
      pattern: "^[a-z]+$",
    });
    assert.equal(d.fields.i.pattern, "^abc$");
    assert.equal(d.fields.i.patternFlags, "i");
    assert.deepEqual(d.fields.e.enum, ["a", "b"]);
    assert.deepEqual(d.fields.c.enum, ["red", "blue"]);
    assert.deepEqual(
      { min: d.fields.n.min, max: d.fields.n.max, enum: d.fields.n.enum },
      { min: 0, max: 10, enum: [0, 5, 10] },
    );
    assert.equal(d.fields.described.description, "Shown to clients");
  });

  it("takes a ref's name from a string or a Model, and skips function refs", () => {
    const m = freshMongoose();
    const User = m.model("Person", new m.Schema({ name: String }));
    const d = describeSchema(
      new m.Schema({
        byName: { type: m.Schema.Types.ObjectId, ref: "Person" },
        byModel: { type: m.Schema.Types.ObjectId, ref: User },
        byFunction: { type: m.Schema.Types.ObjectId, ref: () => "Person" },
        many: [{ type: m.Schema.Types.ObjectId, ref: "Person" }],
      }),
      "Refs",
    );
    assert.equal(d.fields.byName.ref, "Person");
    assert.equal(d.fields.byModel.ref, "Person");
    assert.equal(d.fields.byFunction.ref, undefined);
    assert.equal(d.fields.byFunction.kind, "objectId");
    assert.deepEqual(d.fields.many.items, {
      path: "many",
      kind: "objectId",
      required: false,
      ref: "Person",
    });
  });

  it("describes single nested subdocuments, with their own required and select:false paths", () => {
    const m = freshMongoose();
    const Address = new m.Schema(
      { city: { type: String, required: true }, code: { type: String, select: false } },
      { _id: false },
    );
    const d = describeSchema(
      new m.Schema({ home: { type: Address, required: true }, work: Address }),
      "S",
    );
    assert.deepEqual(d.fields.home, {
      path: "home",
      kind: "object",
      required: true,
      subdocument: true,
      properties: {
        city: { path: "home.city", kind: "string", required: true },
        code: { path: "home.code", kind: "string", required: false, selectFalse: true },
      },
    });
    assert.equal(d.fields.work.required, false);
    assert.equal(d.byPath.get("work.code")?.selectFalse, true);
  });

  it("describes arrays of plain objects, nested arrays and untyped arrays", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({ points: [{ x: Number, y: Number }], grid: [[Number]], anything: [] }),
      "A",
    );
    assert.equal(d.fields.points.items?.subdocument, true);
    assert.deepEqual(Object.keys(d.fields.points.items?.properties ?? {}), ["x", "y", "_id"]);
    assert.equal(d.fields.grid.items?.kind, "array");
    assert.equal(d.fields.grid.items?.items?.kind, "number");
    assert.equal(d.fields.anything.items?.kind, "mixed");
  });

  it("describes maps: untyped values are mixed, schema values are subdocuments", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({
        loose: Map,
        labels: { type: Map, of: String },
        nested: { type: Map, of: new m.Schema({ a: String }) },
      }),
      "M",
    );
    assert.equal(d.fields.loose.values?.kind, "mixed");
    assert.equal(d.fields.labels.values?.kind, "string");
    assert.equal(d.fields.nested.values?.kind, "object");
    assert.equal(d.fields.nested.values?.properties?.a.path, "nested.$*.a");
  });

  it("maps the other BSON types: Decimal128 string, BigInt/Int32 integer, UUID string, Buffer mixed", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({
        price: m.Schema.Types.Decimal128,
        big: BigInt,
        small: m.Schema.Types.Int32,
        dbl: m.Schema.Types.Double,
        key: m.Schema.Types.UUID,
        blob: Buffer,
        whole: { type: Number, validate: Number.isInteger },
      }),
      "T",
    );
    assert.deepEqual(d.fields.price, {
      path: "price",
      kind: "string",
      required: false,
      mongooseType: "Decimal128",
    });
    assert.deepEqual(d.fields.big, {
      path: "big",
      kind: "number",
      required: false,
      integer: true,
      mongooseType: "BigInt",
    });
    assert.equal(d.fields.small.integer, true);
    assert.equal(d.fields.dbl.kind, "number");
    assert.equal(d.fields.dbl.integer, undefined);
    assert.deepEqual(d.fields.key, {
      path: "key",
      kind: "string",
      required: false,
      mongooseType: "UUID",
    });
    assert.deepEqual(d.fields.blob, {
      path: "blob",
      kind: "mixed",
      required: false,
      mongooseType: "Buffer",
    });
    assert.equal(d.fields.whole.integer, true);
  });

  it("finds custom timestamp and version key names, and soft delete", () => {
    const m = freshMongoose();
    // The version key path only exists once a model is compiled, so describe the model.
    const schema = new m.Schema(
      { name: String, deleted: { type: Boolean, default: false } },
      { timestamps: { createdAt: "created_at", updatedAt: false }, versionKey: "revision" },
    );
    const d = describeModel(m.model("Custom", schema));
    assert.deepEqual(d.systemFields, ["_id", "revision", "created_at"]);
    assert.equal(d.fields.created_at.system, true);
    assert.equal(d.fields.updatedAt, undefined);
    assert.equal(d.softDelete, true);
  });

  it("has no version key or timestamps when they are off; a non-boolean `deleted` is not soft delete", () => {
    const m = freshMongoose();
    const d = describeModel(
      m.model("Plain", new m.Schema({ deleted: Date }, { versionKey: false })),
    );
    assert.deepEqual(d.systemFields, ["_id"]);
    assert.equal(d.softDelete, false);
  });

  it("treats `{type: {type: String}}` as a nested field named `type`", () => {
    const m = freshMongoose();
    const d = describeSchema(new m.Schema({ shape: { type: { type: String } } }), "K");
    assert.equal(d.fields.shape.kind, "object");
    assert.equal(d.fields.shape.properties?.type.kind, "string");
    assert.equal(d.byPath.get("shape.type")?.path, "shape.type");
  });
});

/*
 * Mongoose 8 cannot be installed next to 9 here, so its array shapes are hand-built: in
 * Mongoose 8 a SchemaArray keeps the item SchemaType on `caster` (primitive arrays) and a
 * document array's `caster` is the subdocument constructor carrying `.schema`.
 */
describe("describeSchemaType: Mongoose 8 array shapes", () => {
  it("reads a primitive array's item type from `caster`", () => {
    const mongoose8Array = {
      instance: "Array",
      path: "tags",
      options: { type: [String] },
      defaultValue: () => [],
      caster: {
        instance: "String",
        path: "tags",
        options: { maxlength: 20, enum: ["a", "b"] },
        validators: [],
      },
    };
    assert.deepEqual(describeSchemaType("tags", mongoose8Array), {
      path: "tags",
      kind: "array",
      required: false,
      hasDefault: true,
      items: { path: "tags", kind: "string", required: false, maxLength: 20, enum: ["a", "b"] },
    });
  });

  it("keeps the ref of ObjectId items read from `caster`", () => {
    const mongoose8Array = {
      instance: "Array",
      options: {},
      caster: { instance: "ObjectId", options: { ref: "User" } },
    };
    assert.deepEqual(describeSchemaType("owners", mongoose8Array).items, {
      path: "owners",
      kind: "objectId",
      required: false,
      ref: "User",
    });
  });

  it("prefers Mongoose 8's `$embeddedSchemaType` when present", () => {
    const mongoose8Array = {
      instance: "Array",
      options: {},
      $embeddedSchemaType: { instance: "Number", options: { min: 0 } },
      caster: { instance: "Number", options: {} },
    };
    assert.equal(describeSchemaType("n", mongoose8Array).items?.min, 0);
  });

  it("reads a document array's schema from the `caster` constructor", () => {
    const m = freshMongoose();
    const itemSchema = new m.Schema({ name: { type: String, required: true } }, { _id: false });
    function EmbeddedDocument(): void {}
    Object.assign(EmbeddedDocument, { schema: itemSchema });
    const mongoose8DocumentArray = {
      instance: "Array",
      options: {},
      $isMongooseDocumentArray: true,
      caster: EmbeddedDocument,
    };
    assert.deepEqual(describeSchemaType("lines", mongoose8DocumentArray).items, {
      path: "lines",
      kind: "object",
      required: false,
      subdocument: true,
      properties: { name: { path: "lines.name", kind: "string", required: true } },
    });
  });

  it("falls back to the raw `required` option when the computed flags are absent", () => {
    const shaped = { instance: "String", options: { required: [true, "msg"] } };
    assert.equal(describeSchemaType("x", shaped).required, true);
  });
});
