/**
 * The generated JSON Schemas: full expected objects for the Todo model, then the rules
 * (hidden, read-only, system fields, defaults, patterns) one at a time. Every generated
 * schema must also pass the portability checker.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeModel, describeSchema } from "../../src/schema/describeModel.js";
import { createHiddenFields } from "../../src/schema/hiddenFields.js";
import { outputSchema, writeSchema } from "../../src/schema/jsonSchema.js";
import { assertPortable } from "../../src/schema/portability.js";
import type { JsonSchema } from "../../src/schema/types.js";
import { compileValidator } from "../../src/schema/validator.js";
import { buildTodoModel, freshMongoose } from "./fixtures.js";

const OBJECT_ID = "^[0-9a-fA-F]{24}$";
/** Kept in a variable: as a regex literal, lint fixes would rewrite the escape away. */
const LEGACY_ESCAPE = String.raw`^\_x$`;
const todo = describeModel(buildTodoModel().Todo);
const toolsHidden = createHiddenFields(["internalNote"], todo);

const todoWriteProperties = (mode: "create" | "update"): Record<string, JsonSchema> => ({
  title: { type: "string", maxLength: 200, description: "At most 200 characters." },
  completed: mode === "create" ? { type: "boolean", default: false } : { type: "boolean" },
  dueDate: { type: "string", format: "date-time" },
  tags: { type: "array", items: { type: "string" } },
  ownerId: {
    type: "string",
    pattern: OBJECT_ID,
    description: "ObjectId of a User document (24 hex characters).",
  },
  priority: { type: "number", minimum: 1, maximum: 5, description: "Between 1 and 5." },
  status: { type: "string", enum: ["open", "closed"] },
  address: {
    type: "object",
    properties: {
      city: { type: "string" },
      zip: { type: "string", pattern: "^\\d{5}$", description: "Must match /^\\d{5}$/." },
    },
    additionalProperties: false,
  },
  items: {
    type: "array",
    items: {
      type: "object",
      properties: {
        name: { type: "string" },
        qty: { type: "number" },
        _id: { type: "string", pattern: OBJECT_ID, description: "ObjectId (24 hex characters)." },
      },
      required: ["name"],
      additionalProperties: false,
    },
  },
  meta: {
    type: "object",
    additionalProperties: { type: "number" },
    description: "Keys must not contain '.' or start with '$'.",
  },
  extra: { description: "Any JSON value." },
});

const orNull = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: "null" }] });

describe("writeSchema: the Todo model", () => {
  it("create: visible writable fields, required from the schema, defaults kept", () => {
    assert.deepEqual(writeSchema(todo, { hidden: toolsHidden, mode: "create" }), {
      type: "object",
      properties: todoWriteProperties("create"),
      required: ["title"],
      additionalProperties: false,
    });
  });

  it("update: everything optional, at least one field, no defaults", () => {
    assert.deepEqual(writeSchema(todo, { hidden: toolsHidden, mode: "update" }), {
      type: "object",
      properties: todoWriteProperties("update"),
      additionalProperties: false,
      minProperties: 1,
    });
  });

  it("keeps properties in schema order", () => {
    const schema = writeSchema(todo, { hidden: toolsHidden, mode: "create" });
    assert.deepEqual(
      Object.keys(schema.properties ?? {}),
      Object.keys(todoWriteProperties("create")),
    );
  });

  it("without excludeFields, internalNote is writable; select:false and system fields never are", () => {
    const hidden = createHiddenFields([], todo);
    const props = writeSchema(todo, { hidden, mode: "create" }).properties ?? {};
    assert.deepEqual(props.internalNote, { type: "string" });
    for (const name of ["secret", "_id", "__v", "id", "createdAt", "updatedAt"]) {
      assert.equal(props[name], undefined, name);
    }
  });

  it("leaves out read-only fields, top-level and dotted", () => {
    const schema = writeSchema(todo, {
      hidden: toolsHidden,
      readOnlyFields: ["ownerId", "address.zip", "items.qty", "title"],
      mode: "create",
    });
    const props = schema.properties ?? {};
    assert.equal(props.ownerId, undefined);
    assert.deepEqual(Object.keys(props.address.properties ?? {}), ["city"]);
    assert.deepEqual(Object.keys(props.items.items?.properties ?? {}), ["name", "_id"]);
    // A required field that is read-only (set by a hook) is no longer required of the client.
    assert.equal(schema.required, undefined);
  });

  it("hides bare names at every depth and dotted paths at one location", () => {
    const hidden = createHiddenFields(["name", "address.city"], todo);
    const props = writeSchema(todo, { hidden, mode: "create" }).properties ?? {};
    assert.deepEqual(Object.keys(props.address.properties ?? {}), ["zip"]);
    assert.deepEqual(props.items.items?.required, undefined);
    assert.deepEqual(Object.keys(props.items.items?.properties ?? {}), ["qty", "_id"]);
  });

  it("drops an object whose every field is hidden", () => {
    const hidden = createHiddenFields(["address.city", "address.zip"], todo);
    const props = writeSchema(todo, { hidden, mode: "create" }).properties ?? {};
    assert.equal(props.address, undefined);
  });

  it("drops a map whose value fields are all hidden instead of accepting any value", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({ byKey: { type: Map, of: new m.Schema({ pin: String }, { _id: false }) } }),
      "H",
    );
    const props =
      writeSchema(d, { hidden: createHiddenFields(["pin"], d), mode: "create" }).properties ?? {};
    assert.equal(props.byKey, undefined);
  });

  it("with nullable: optional fields accept null, required ones do not", () => {
    const props =
      writeSchema(todo, { hidden: toolsHidden, mode: "update", nullable: true }).properties ?? {};
    assert.deepEqual(props.dueDate, orNull({ type: "string", format: "date-time" }));
    assert.deepEqual(props.priority, {
      anyOf: [{ type: "number", minimum: 1, maximum: 5 }, { type: "null" }],
      description: "Between 1 and 5.",
    });
    const create = writeSchema(todo, { hidden: toolsHidden, mode: "create", nullable: true });
    assert.deepEqual(create.properties?.title, todoWriteProperties("create").title);
  });
});

describe("writeSchema: rules", () => {
  it("a required field with a default is not required in the input", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({
        kind: { type: String, required: true, default: "note" },
        name: { type: String, required: true },
        stamp: { type: Date, required: true, default: Date.now },
      }),
      "R",
    );
    const schema = writeSchema(d, { hidden: createHiddenFields([], d), mode: "create" });
    assert.deepEqual(schema.required, ["name"]);
    assert.equal(schema.properties?.kind.default, "note");
    assert.equal(schema.properties?.stamp.default, undefined);
  });

  it("a plain nested object is required on create when a child is; optional on update", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({ address: { city: { type: String, required: true }, zip: String } }),
      "N",
    );
    const hidden = createHiddenFields([], d);
    const create = writeSchema(d, { hidden, mode: "create" });
    assert.deepEqual(create.required, ["address"]);
    assert.deepEqual(create.properties?.address.required, ["city"]);
    const update = writeSchema(d, { hidden, mode: "update" });
    assert.equal(update.required, undefined);
    assert.equal(update.properties?.address.required, undefined);
  });

  it("subdocuments keep their own required fields on update (they are replaced whole)", () => {
    const m = freshMongoose();
    const Line = new m.Schema({ sku: { type: String, required: true } }, { _id: false });
    const d = describeSchema(
      new m.Schema({ main: { type: Line, required: true }, lines: [Line] }),
      "O",
    );
    const update = writeSchema(d, { hidden: createHiddenFields([], d), mode: "update" });
    assert.equal(update.required, undefined);
    assert.deepEqual(update.properties?.main.required, ["sku"]);
    assert.deepEqual(update.properties?.lines.items?.required, ["sku"]);
    const create = writeSchema(d, { hidden: createHiddenFields([], d), mode: "create" });
    assert.deepEqual(create.required, ["main"]);
  });

  it("leaves out the soft-delete flag and subdocument timestamps, keeps subdocument _id", () => {
    const m = freshMongoose();
    const Note = new m.Schema({ text: String }, { timestamps: true });
    const d = describeModel(
      m.model("Soft", new m.Schema({ notes: [Note], deleted: { type: Boolean, default: false } })),
    );
    const props =
      writeSchema(d, { hidden: createHiddenFields([], d), mode: "create" }).properties ?? {};
    assert.equal(props.deleted, undefined);
    assert.deepEqual(Object.keys(props.notes.items?.properties ?? {}), ["text", "_id"]);
  });

  it("puts user descriptions first and repeats dropped constraints as sentences", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({
        code: {
          type: String,
          minlength: 2,
          maxlength: 8,
          match: /^[a-z]+$/,
          description: "Short code",
        },
        score: { type: Number, min: 0, description: "Points!" },
        count: { type: m.Schema.Types.Int32, max: 10 },
      }),
      "D",
    );
    const props =
      writeSchema(d, { hidden: createHiddenFields([], d), mode: "create" }).properties ?? {};
    assert.deepEqual(props.code, {
      type: "string",
      minLength: 2,
      maxLength: 8,
      pattern: "^[a-z]+$",
      description: "Short code. Between 2 and 8 characters. Must match /^[a-z]+$/.",
    });
    assert.deepEqual(props.score, {
      type: "number",
      minimum: 0,
      description: "Points! At least 0.",
    });
    assert.deepEqual(props.count, { type: "integer", maximum: 10, description: "At most 10." });
  });

  it("describes, but does not emit, patterns with flags or syntax invalid under /u", () => {
    const m = freshMongoose();
    const d = describeSchema(
      // `\_` is a legal identity escape without /u and a syntax error with it (ajv would throw).
      new m.Schema({
        a: { type: String, match: /^abc$/i },
        b: { type: String, match: new RegExp(LEGACY_ESCAPE) },
      }),
      "P",
    );
    const props =
      writeSchema(d, { hidden: createHiddenFields([], d), mode: "create" }).properties ?? {};
    assert.deepEqual(props.a, { type: "string", description: "Must match /^abc$/i." });
    assert.deepEqual(props.b, { type: "string", description: "Must match /^\\_x$/." });
    assert.doesNotThrow(() =>
      compileValidator(writeSchema(d, { hidden: createHiddenFields([], d), mode: "create" })),
    );
  });

  it("maps the other BSON types", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({
        price: m.Schema.Types.Decimal128,
        big: BigInt,
        key: m.Schema.Types.UUID,
        blob: Buffer,
        owners: [{ type: m.Schema.Types.ObjectId, ref: "User" }],
        loose: Map,
      }),
      "B",
    );
    const props =
      writeSchema(d, { hidden: createHiddenFields([], d), mode: "create" }).properties ?? {};
    assert.deepEqual(props.price, {
      type: "string",
      pattern: "^[-+]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?$",
      description: 'Decimal number as a string, e.g. "12.50".',
    });
    assert.deepEqual(props.big, { type: "integer" });
    assert.deepEqual(props.key, { type: "string", format: "uuid" });
    assert.deepEqual(props.blob, { description: "Binary data." });
    assert.deepEqual(props.owners, {
      type: "array",
      items: {
        type: "string",
        pattern: OBJECT_ID,
        description: "ObjectId of a User document (24 hex characters).",
      },
    });
    assert.deepEqual(props.loose, {
      type: "object",
      additionalProperties: { description: "Any JSON value." },
      description: "Keys must not contain '.' or start with '$'.",
    });
  });
});

describe("outputSchema: the Todo model", () => {
  it("describes a serialized document: id required, optional values nullable, refs string-or-object", () => {
    assert.deepEqual(outputSchema(todo, { hidden: toolsHidden }), {
      type: "object",
      properties: {
        id: { type: "string", description: "The document's id." },
        title: { type: "string" },
        completed: orNull({ type: "boolean" }),
        dueDate: orNull({ type: "string", format: "date-time" }),
        tags: orNull({ type: "array", items: { type: "string" } }),
        ownerId: {
          anyOf: [
            { type: "string", description: "ObjectId of a User document (24 hex characters)." },
            {
              type: "object",
              additionalProperties: true,
              description: "The populated User document.",
            },
            { type: "null" },
          ],
        },
        priority: orNull({ type: "number" }),
        status: { ...orNull({ type: "string" }), description: "One of: open, closed." },
        address: orNull({
          type: "object",
          properties: {
            city: orNull({ type: "string" }),
            zip: orNull({ type: "string" }),
          },
          additionalProperties: true,
        }),
        items: orNull({
          type: "array",
          items: {
            type: "object",
            properties: {
              name: { type: "string" },
              qty: orNull({ type: "number" }),
              _id: { ...orNull({ type: "string" }), description: "ObjectId (24 hex characters)." },
            },
            additionalProperties: true,
          },
        }),
        meta: orNull({ type: "object", additionalProperties: { type: "number" } }),
        extra: { description: "Any JSON value." },
        createdAt: orNull({ type: "string", format: "date-time" }),
        updatedAt: orNull({ type: "string", format: "date-time" }),
      },
      required: ["id"],
      additionalProperties: true,
    });
  });

  it("never lists hidden or select:false fields", () => {
    const hidden = createHiddenFields(["name", "address"], todo);
    const props = outputSchema(todo, { hidden }).properties ?? {};
    assert.equal(props.secret, undefined);
    assert.equal(props.address, undefined);
    assert.ok(props.internalNote);
    const items = props.items.anyOf?.[0].items;
    assert.deepEqual(Object.keys(items?.properties ?? {}), ["qty", "_id"]);
  });

  it("keeps a required ref nullable: a populated ref to a deleted document is null", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({ owner: { type: m.Schema.Types.ObjectId, ref: "User", required: true } }),
      "Q",
    );
    const owner = outputSchema(d, { hidden: createHiddenFields([], d) }).properties?.owner;
    assert.equal(owner?.anyOf?.length, 3);
    assert.deepEqual(owner?.anyOf?.[2], { type: "null" });
  });
});

describe("portability of every generated schema", () => {
  const m = freshMongoose();
  const kitchenSink = describeModel(
    m.model(
      "Sink",
      new m.Schema(
        {
          a: { type: String, match: /^x$/i },
          b: m.Schema.Types.Decimal128,
          c: m.Schema.Types.UUID,
          d: Buffer,
          e: [[Number]],
          f: { type: Map, of: new m.Schema({ g: String }) },
          h: { type: new m.Schema({ i: [{ j: Date }] }) },
          k: [{ type: m.Schema.Types.ObjectId, ref: "User" }],
          deleted: Boolean,
        },
        { timestamps: true },
      ),
    ),
  );
  for (const [name, d] of [
    ["Todo", todo],
    ["Sink", kitchenSink],
  ] as const) {
    it(`${name}: create, update, nullable update and output are portable`, () => {
      const hidden = createHiddenFields([], d);
      assertPortable(writeSchema(d, { hidden, mode: "create" }), { closedObjects: true });
      assertPortable(writeSchema(d, { hidden, mode: "update" }), { closedObjects: true });
      assertPortable(writeSchema(d, { hidden, mode: "update", nullable: true }), {
        closedObjects: true,
      });
      assertPortable(outputSchema(d, { hidden }));
    });
  }
});
