/**
 * The generated JSON Schemas: full expected objects for the Todo model, then the rules
 * (hidden, read-only, system fields, defaults, patterns) one at a time. Every generated
 * schema must also pass the portability checker.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeModel, describeSchema } from "../../src/schema/describeModel.js";
import { nullable } from "../../src/schema/fieldSchema.js";
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
  dueDate: WRITTEN_DATE,
  tags: { type: "array", items: { type: "string" }, maxItems: 1000 },
  ownerId: WRITTEN_USER_REF,
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
        id: { type: "string", pattern: OBJECT_ID, description: ITEM_ID },
      },
      required: ["name"],
      additionalProperties: false,
    },
    maxItems: 1000,
  },
  meta: {
    type: "object",
    propertyNames: STORABLE_KEY,
    additionalProperties: { type: "number" },
    description: "Keys must not contain '.' or start with '$'.",
  },
  extra: WRITTEN_ANY_VALUE,
});

/** A written ref: the id, or the object a populated read shows, carrying it as `id` or `_id`. */
const WRITTEN_USER_REF: JsonSchema = {
  anyOf: [
    { type: "string", pattern: OBJECT_ID },
    {
      type: "object",
      properties: {
        id: { type: "string", pattern: OBJECT_ID },
        _id: { type: "string", pattern: OBJECT_ID },
      },
      anyOf: [{ required: ["id"] }, { required: ["_id"] }],
      additionalProperties: true,
    },
  ],
  description: "User id (24 hex characters), or an object with its id; other keys are ignored.",
};

const orNull = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: "null" }] });

/** Mixed: every JSON type named (never a bare `{}`), lists of lists and null left out. */
const ANY_VALUE: JsonSchema = {
  anyOf: [
    { type: "string" },
    { type: "number" },
    { type: "boolean" },
    { type: "object" },
    {
      type: "array",
      items: {
        anyOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }, { type: "object" }],
      },
    },
  ],
  description: "A string, number, boolean, object, or a list of those.",
};

/** Keys a stored object may have: no ".", no leading "$", not empty. */
const STORABLE_KEY: JsonSchema = { pattern: "^[^$.][^.]*$" };

/**
 * Mixed in a write schema: its list form holds at most DEFAULT_MAX_ITEMS (1,000) items, and
 * its object forms take storable keys only.
 */
const WRITTEN_ANY_VALUE: JsonSchema = {
  anyOf: [
    { type: "string" },
    { type: "number" },
    { type: "boolean" },
    { type: "object", propertyNames: STORABLE_KEY },
    {
      type: "array",
      items: {
        anyOf: [
          { type: "string" },
          { type: "number" },
          { type: "boolean" },
          { type: "object", propertyNames: STORABLE_KEY },
        ],
      },
      maxItems: 1000,
    },
  ],
  description:
    "A string, number, boolean, object, or a list of those. Keys must not contain '.' or start with '$'.",
};

/** A written date: a date-time or a date alone, both said in the schema and its description. */
const WRITTEN_DATE: JsonSchema = {
  anyOf: [
    { type: "string", format: "date-time" },
    { type: "string", format: "date" },
  ],
  description: "A date alone means 00:00 UTC.",
};
const ITEM_ID = "The item's id as read (24 hex characters); omit it for a new item.";

/**
 * The update body is a merge patch: nothing required at the levels it merges, every optional
 * field and nested field nullable (null clears it), map keys nullable (null removes one). An
 * array is replaced whole, so its items keep their required fields (issue #22 item 4).
 */
function todoPatchProperties(): Record<string, JsonSchema> {
  const plain = todoWriteProperties("update");
  const { items } = plain.items;
  return {
    title: plain.title,
    completed: orNull({ type: "boolean" }),
    dueDate: nullable(WRITTEN_DATE),
    tags: nullable(plain.tags),
    ownerId: nullable(plain.ownerId),
    priority: nullable(plain.priority),
    status: orNull(plain.status),
    address: orNull({
      type: "object",
      properties: {
        city: orNull({ type: "string" }),
        zip: nullable(plain.address.properties?.zip ?? {}),
      },
      additionalProperties: false,
    }),
    items: nullable({ ...plain.items, items }),
    meta: nullable({ ...plain.meta, additionalProperties: orNull({ type: "number" }) }),
    extra: nullable(plain.extra),
    ...READ_BACK_TIMESTAMPS,
  };
}

/** What a read shows and an update takes back, ignored: the timestamps, as read. */
const READ_BACK_TIMESTAMPS: Record<string, JsonSchema> = {
  createdAt: { type: "string", format: "date-time", readOnly: true },
  updatedAt: { type: "string", format: "date-time", readOnly: true },
};

describe("writeSchema: the Todo model", () => {
  it("create: visible writable fields, required from the schema, defaults kept", () => {
    assert.deepEqual(writeSchema(todo, { hidden: toolsHidden, mode: "create" }), {
      type: "object",
      properties: todoWriteProperties("create"),
      required: ["title"],
      additionalProperties: false,
    });
  });

  it("update: a merge patch; only whole array items require, optional fields nullable, no defaults", () => {
    const schema = writeSchema(todo, { hidden: toolsHidden, mode: "update" });
    assert.deepEqual(JSON.parse(JSON.stringify(schema)), {
      type: "object",
      properties: JSON.parse(JSON.stringify(todoPatchProperties())),
      additionalProperties: false,
    });
    const { items: _items, ...merged } = schema.properties ?? {};
    // Nothing merged is required but the id of a ref written as an object (a populated read).
    const refIdRequired = /"anyOf":\[\{"required":\["id"\]\},\{"required":\["_id"\]\}\]/g;
    assert.doesNotMatch(
      JSON.stringify(merged).replace(refIdRequired, ""),
      /required/i,
      "nothing merged is required",
    );
    assert.deepEqual(schema.properties?.items.anyOf?.[0].items?.required, ["name"]);
  });

  it("update without nullable: the same fields, no null anywhere", () => {
    const properties = { ...todoWriteProperties("update"), ...READ_BACK_TIMESTAMPS };
    const schema = writeSchema(todo, { hidden: toolsHidden, mode: "update", nullable: false });
    assert.deepEqual(schema, {
      type: "object",
      properties,
      additionalProperties: false,
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
    assert.deepEqual(Object.keys(props.items.items?.properties ?? {}), ["name", "id"]);
    // A required field that is read-only (set by a hook) is no longer required of the client.
    assert.equal(schema.required, undefined);
  });

  it("hides bare names at every depth and dotted paths at one location", () => {
    const hidden = createHiddenFields(["name", "address.city"], todo);
    const props = writeSchema(todo, { hidden, mode: "create" }).properties ?? {};
    assert.deepEqual(Object.keys(props.address.properties ?? {}), ["zip"]);
    assert.deepEqual(props.items.items?.required, undefined);
    assert.deepEqual(Object.keys(props.items.items?.properties ?? {}), ["qty", "id"]);
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
    assert.deepEqual(props.dueDate, nullable(WRITTEN_DATE));
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

  it("a subdocument lists its required fields on create, an array's items on create and update", () => {
    const m = freshMongoose();
    const Line = new m.Schema({ sku: { type: String, required: true } }, { _id: false });
    const d = describeSchema(
      new m.Schema({ main: { type: Line, required: true }, lines: [Line] }),
      "O",
    );
    const update = writeSchema(d, { hidden: createHiddenFields([], d), mode: "update" });
    assert.equal(update.required, undefined);
    // A required subdocument, and a required field of a merged one, may not be null.
    assert.deepEqual(update.properties?.main, {
      type: "object",
      properties: { sku: { type: "string" } },
      additionalProperties: false,
    });
    // An array is replaced whole: each item is a complete value, on update too.
    assert.deepEqual(update.properties?.lines.anyOf?.[0].items?.required, ["sku"]);
    const validate = compileValidator(update);
    const refused = validate({ lines: [{}] });
    assert.ok(!refused.ok);
    assert.deepEqual(refused.fields, { "lines.0.sku": "is required" });
    const create = writeSchema(d, { hidden: createHiddenFields([], d), mode: "create" });
    assert.deepEqual(create.required, ["main"]);
    assert.deepEqual(create.properties?.main.required, ["sku"]);
    assert.deepEqual(create.properties?.lines.items?.required, ["sku"]);
  });

  it("subdocuments are written with `id`, as reads show them; `_id` is not a field", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({
        one: new m.Schema({ a: String }),
        many: [new m.Schema({ b: String })],
        own: [new m.Schema({ id: String, c: String })],
      }),
      "I",
    );
    for (const mode of ["create", "update"] as const) {
      const props = writeSchema(d, { hidden: createHiddenFields([], d), mode }).properties ?? {};
      const one = props.one.anyOf?.[0] ?? props.one;
      const many = (props.many.anyOf?.[0] ?? props.many).items;
      const own = (props.own.anyOf?.[0] ?? props.own).items;
      assert.deepEqual(Object.keys(one.properties ?? {}), ["a", "id"], mode);
      assert.deepEqual(one.properties?.id, {
        type: "string",
        pattern: OBJECT_ID,
        description: ITEM_ID,
      });
      assert.deepEqual(Object.keys(many?.properties ?? {}), ["b", "id"], mode);
      // A subdocument with a field of its own called `id` keeps it; its `_id` stays unwritable.
      assert.deepEqual(Object.keys(own?.properties ?? {}), ["id", "c", "_id"], mode);
    }
  });

  it("leaves out the soft-delete flag and subdocument timestamps, keeps subdocument id", () => {
    const m = freshMongoose();
    const Note = new m.Schema({ text: String }, { timestamps: true });
    const d = describeModel(
      m.model("Soft", new m.Schema({ notes: [Note], deleted: { type: Boolean, default: false } })),
    );
    const props =
      writeSchema(d, { hidden: createHiddenFields([], d), mode: "create" }).properties ?? {};
    assert.equal(props.deleted, undefined);
    assert.deepEqual(Object.keys(props.notes.items?.properties ?? {}), ["text", "id"]);
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
    assert.deepEqual(props.blob, {
      anyOf: [
        { type: "string" },
        { type: "array", items: { type: "integer", minimum: 0, maximum: 255 }, maxItems: 1000 },
        { type: "object" },
      ],
      description:
        'Binary data: UTF-8 text, a list of bytes (0 to 255), or {"type": "Buffer", "data": [bytes]}.',
    });
    assert.deepEqual(props.owners, { type: "array", items: WRITTEN_USER_REF, maxItems: 1000 });
    assert.deepEqual(props.loose, {
      type: "object",
      propertyNames: STORABLE_KEY,
      additionalProperties: WRITTEN_ANY_VALUE,
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
              id: { ...orNull({ type: "string" }), description: "ObjectId (24 hex characters)." },
            },
            additionalProperties: true,
          },
        }),
        meta: orNull({ type: "object", additionalProperties: { type: "number" } }),
        extra: nullable(ANY_VALUE),
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
    assert.deepEqual(Object.keys(items?.properties ?? {}), ["qty", "id"]);
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

describe("writeSchema: unique fields say so (issue #22 item 4)", () => {
  it("a unique path's description says Unique., on create and update; others do not", () => {
    const m = freshMongoose();
    const d = describeSchema(
      new m.Schema({
        code: { type: String, unique: true, maxlength: 8 },
        serial: { type: Number, unique: true },
        name: String,
      }),
      "U",
    );
    for (const mode of ["create", "update"] as const) {
      const props = writeSchema(d, { hidden: createHiddenFields([], d), mode }).properties ?? {};
      const code = props.code.anyOf ? props.code : props.code;
      assert.equal(code.description, "At most 8 characters. Unique.", mode);
      assert.equal(props.serial.description, "Unique.", mode);
      assert.equal(props.name.description, undefined, mode);
    }
  });
});
