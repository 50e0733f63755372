// Property test (issue #11): the list tool's advertised contract and the core agree, and REST
// and MCP agree wherever their views do.
//
// The contract is what a client is told: the list tool's inputSchema (checked with ajv, through
// compileValidator) plus the limits its descriptions state instead of repeating them as
// keywords per operand (string and list lengths, $regex and $options, id and date syntax,
// sortable names, page bounds, $or/$and branches "like this one"). The oracle below reads
// those limits as a client would; a test at the end checks the descriptions really say them.
//
// 1. Whatever the contract accepts, `list()` with transport "mcp" accepts; whatever it refuses,
//    `list()` refuses (a validation_failed error). Anything else (a 500) fails the test.
// 2. Where every field and sort key an input names is visible on both surfaces, REST accepts
//    what MCP accepts, and for typed input (the JSON types the schema gives, which is all MCP
//    takes; REST also reads query-string spellings such as "5" or "a,b") both say the same.
//
// Inputs are drawn over Todo and Food (test/helpers, with the REST suites' options) and a
// Gadget with nested objects, arrays of subdocuments, enums and hidden fields. Field names mix
// visible, hidden, unknown, nested and array paths, `__v`, `id` and `$` keys. The seed is fixed
// and printed; VIEW_SEED=<n> tries another, VIEW_RUNS sets the runs per model.
//
// Left out of the draws, each for a stated reason: NUL characters in plain strings (FerretDB
// refuses them, a real MongoDB does not: not the core's rule) and integers beyond 2^53 for
// page/limit (JSON cannot carry them exactly; the core refuses them).

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import mongoose, { Schema } from "mongoose";
import type { CrudOptions } from "../../src/core/crudOptions.js";
import { TerrenoError } from "../../src/core/errors.js";
import { list } from "../../src/core/index.js";
import { IsAuthenticated } from "../../src/core/permissions.js";
import { defineResource, type Resource } from "../../src/core/resource.js";
import { callContext } from "../../src/core/services.js";
import type { PlainObject, Transport } from "../../src/core/types.js";
import { allowedOperators } from "../../src/schema/operators.js";
import type { FieldDescriptor, JsonSchema } from "../../src/schema/types.js";
import { compileValidator, type Validator } from "../../src/schema/validator.js";
import { STANDALONE_SERVICES } from "../../src/tools/services.js";
import { useTestDatabase } from "../helpers/database.js";
import { Food, Todo } from "../helpers/models.js";
import { foodOptions, todoOptions } from "../helpers/restApp.js";

useTestDatabase("tools_view_property");

const DEFAULT_SEED = 20_261_201;
const SEED = Number.parseInt(process.env.VIEW_SEED ?? "", 10) || DEFAULT_SEED;
const RUNS = Number.parseInt(process.env.VIEW_RUNS ?? "", 10) || 400;

const gadgetSchema = new Schema(
  {
    name: { type: String, required: true, maxlength: 80 },
    status: { type: String, enum: ["draft", "live", "retired"], default: "draft" },
    rating: { type: Number, enum: [1, 2, 3] },
    specs: {
      weight: { type: Number, min: 0 },
      color: { type: String, enum: ["red", "blue"] },
      size: { w: Number, h: Number },
    },
    parts: [{ label: { type: String, required: true }, qty: Number, secretCode: String }],
    labels: [{ type: String, enum: ["new", "sale"] }],
    releasedAt: Date,
    meta: Schema.Types.Mixed,
    secret: { type: String, select: false },
    internalCode: String,
    ownerId: { type: Schema.Types.ObjectId, ref: "User" },
  },
  { timestamps: true },
);
const Gadget = mongoose.models.PropertyGadget ?? mongoose.model("PropertyGadget", gadgetSchema);

const gadgetOptions: CrudOptions = {
  permissions: { list: [IsAuthenticated] },
  queryFields: [
    "name",
    "status",
    "rating",
    "specs",
    "specs.weight",
    "specs.color",
    "specs.size.w",
    "parts",
    "parts.label",
    "parts.secretCode",
    "labels",
    "releasedAt",
    "meta",
    "secret",
    "internalCode",
    "ownerId",
  ],
  populatePaths: [{ path: "ownerId", fields: ["name"] }],
  mcp: { excludeFields: ["internalCode", "secretCode"], maxLimit: 5 },
};

const RESOURCES: Record<string, Resource> = {
  todos: defineResource(Todo, todoOptions()),
  foods: defineResource(Food, foodOptions()),
  gadgets: defineResource(Gadget, gadgetOptions),
};

const user = { id: new mongoose.Types.ObjectId().toString() };
const COMBINATORS = ["$or", "$and"];

type Input = {
  filter?: PlainObject;
  sort?: unknown;
  page?: unknown;
  limit?: unknown;
  populate?: unknown;
};

const isRecord = (value: unknown): value is PlainObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const defined = (input: Input): PlainObject =>
  Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));

/** "ok", or "refused" with the core's reasons; any other failure throws (and fails the run). */
async function core(resource: Resource, transport: Transport, input: Input) {
  try {
    await list(resource, callContext(STANDALONE_SERVICES, { user, transport, headers: {} }), input);
    return { ok: true, fields: {} };
  } catch (error) {
    if (error instanceof TerrenoError && error.code === "validation_failed") {
      return { ok: false, fields: error.fields ?? {} };
    }
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// The contract, read as a client reads it: the schema, then the limits its descriptions state.
// ---------------------------------------------------------------------------------------------

interface Contract {
  schema: JsonSchema;
  validate: Validator;
  validateFilter?: Validator;
  sortable: string[];
  /** The operators the filter's description gives a field. */
  operatorsOf: (path: string) => Set<string>;
  /** A plain value of the field, as its schema types it (the operands of most operators). */
  plainOk: (path: string, value: unknown) => boolean;
}

/**
 * "Operators: $eq, $ne, $in, $nin, $exists; also $gt, $gte, $lt, $lte on a, b; no $in, $nin
 * on c." — the common set, then per field what it takes beyond it or lacks.
 */
function readOperators(description: string): (path: string) => Set<string> {
  // Dotted paths hold "."; the sentence ends at a "." before a space.
  const sentence = /Operators: (.*?)\.(?: |$)/.exec(description)?.[1] ?? "";
  const [common, ...rest] = sentence.split("; ");
  const names = (text: string) => text.split(", ").filter(Boolean);
  const rules = rest.map((part) => {
    const match = /^(also|no) (.*) on (.*)$/.exec(part);
    assert.ok(match, `unreadable operator rule: ${part}`);
    return { also: match[1] === "also", operators: names(match[2]), paths: names(match[3]) };
  });
  return (path) => {
    const operators = new Set(names(common));
    for (const rule of rules) {
      if (!rule.paths.includes(path)) continue;
      for (const operator of rule.operators) {
        if (rule.also) operators.add(operator);
        else operators.delete(operator);
      }
    }
    return operators;
  };
}

const contracts = new Map<Resource, Contract>();

function contractOf(resource: Resource): Contract {
  const known = contracts.get(resource);
  if (known) return known;
  const schema = resource.views.tools.listInput?.schema;
  assert.ok(schema, "the tools view has a list input");
  const filter = schema.properties?.filter;
  // "≤5 comma-separated, "-" for descending: a, b, c." — the sortable names, as described.
  const sortText = schema.properties?.sort?.description ?? "";
  const plain = new Map<string, Validator>();
  for (const [path, value] of Object.entries(filter?.properties ?? {})) {
    const branch = value.anyOf?.[0];
    if (branch) plain.set(path, compileValidator(branch));
  }
  const contract: Contract = {
    schema,
    validate: compileValidator(schema),
    validateFilter: filter ? compileValidator(filter) : undefined,
    sortable: sortText.slice(sortText.indexOf(": ") + 2, -1).split(", "),
    operatorsOf: readOperators(filter?.description ?? ""),
    plainOk: (path, value) => plain.get(path)?.(value).ok === true,
  };
  contracts.set(resource, contract);
  return contract;
}

/** "Dates (…): ISO 8601 date or date-time with zone." */
function isIsoDate(value: string): boolean {
  const match =
    /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?$/i.exec(
      value,
    );
  if (!match) return false;
  const [y, m, d, h = 0, min = 0, s = 0] = match.slice(1).map((part) => Number(part ?? 0));
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCMonth() === m - 1 && day.getUTCDate() === d && h < 24 && min < 60 && s < 60;
}

function scalarOk(field: FieldDescriptor, value: unknown): boolean {
  switch (field.kind) {
    case "string":
      return typeof value === "string" && value.length <= 1000; // "Strings ≤1000 chars."
    case "objectId":
      return typeof value === "string" && /^[0-9a-f]{24}$/i.test(value); // "Ids (…): 24 hex chars."
    case "date":
      return typeof value === "string" && isIsoDate(value);
    default:
      return true; // numbers, booleans, enums: the schema's own keywords
  }
}

function regexOk(pattern: unknown, options: unknown): boolean {
  // "$regex: JS regex ≤200 chars without NUL, plus optional $options: flags imsx."
  if (typeof pattern !== "string" || pattern.length > 200 || pattern.includes("\u0000")) {
    return false;
  }
  if (options !== undefined && !/^[imsx]{0,4}$/.test(String(options))) return false;
  try {
    new RegExp(pattern, [...new Set(String(options ?? "").replace(/x/g, ""))].join(""));
    return true;
  } catch {
    return false;
  }
}

function valueOk(resource: Resource, field: FieldDescriptor, value: unknown): boolean {
  const target = field.kind === "array" && field.items ? field.items : field;
  if (!isRecord(value)) return scalarOk(target, value);
  const { operatorsOf, plainOk } = contractOf(resource);
  // "Each field: a value of its type, or a non-empty {operator: value}."
  const operand = (v: unknown) => plainOk(field.path, v) && scalarOk(target, v);
  if (Object.keys(value).length === 0) return false;
  if ("$options" in value && !("$regex" in value)) return false;
  const allowed = operatorsOf(field.path);
  return Object.entries(value).every(([operator, given]) => {
    if (operator !== "$options" && !allowed.has(operator)) return false;
    switch (operator) {
      case "$in":
      case "$nin": // "$in/$nin: a list of ≤100 values."
        return Array.isArray(given) && given.length <= 100 && given.every(operand);
      case "$exists": // "$exists: a boolean."
        return typeof given === "boolean";
      case "$options":
        return true;
      case "$regex":
        return regexOk(given, value.$options);
      default:
        return operand(given);
    }
  });
}

/** "$or/$and: 1-10 non-empty filters like this one, nested ≤2." */
function clauseOk(resource: Resource, clause: PlainObject, depth: number): boolean {
  const { validateFilter } = contractOf(resource);
  return Object.entries(clause).every(([key, value]) => {
    if (COMBINATORS.includes(key)) {
      if (depth + 1 > 2 || !Array.isArray(value) || value.length < 1 || value.length > 10) {
        return false;
      }
      return value.every(
        (branch) =>
          isRecord(branch) &&
          Object.keys(branch).length > 0 &&
          validateFilter?.(branch).ok === true &&
          clauseOk(resource, branch, depth + 1),
      );
    }
    const field = resource.description.byPath.get(key);
    return field !== undefined && valueOk(resource, field, value);
  });
}

function sortOk(resource: Resource, sort: unknown): boolean {
  if (sort === undefined) return true;
  const parts = String(sort).split(",");
  const { sortable } = contractOf(resource);
  return parts.length <= 5 && parts.every((part) => sortable.includes(part.replace(/^-/, "")));
}

/**
 * Operands of the JSON types the description gives them ("a value of its type", "$in/$nin: a
 * list", "$exists: a boolean"), without the described limits. Unknown fields and operators
 * are left to the rest of the contract.
 */
function operandsTyped(resource: Resource, clause: PlainObject): boolean {
  const { plainOk } = contractOf(resource);
  return Object.entries(clause).every(([key, value]) => {
    if (COMBINATORS.includes(key) || !isRecord(value)) return true;
    return Object.entries(value).every(([operator, operand]) => {
      switch (operator) {
        case "$in":
        case "$nin":
          return Array.isArray(operand) && operand.every((item) => plainOk(key, item));
        case "$exists":
          return typeof operand === "boolean";
        case "$regex":
        case "$options":
          return typeof operand === "string";
        default:
          return !operator.startsWith("$") || plainOk(key, operand);
      }
    });
  });
}

/** The schema's types alone (recursively into branches), without the described limits. */
function typed(resource: Resource, input: Input): boolean {
  const { validate, validateFilter } = contractOf(resource);
  if (!validate(defined(input)).ok) return false;
  if (isRecord(input.filter) && !operandsTyped(resource, input.filter)) return false;
  const branchesTyped = (clause: PlainObject): boolean =>
    COMBINATORS.every((key) => {
      const branches = clause[key];
      return (
        !Array.isArray(branches) ||
        branches.every(
          (branch) =>
            !isRecord(branch) ||
            (validateFilter?.(branch).ok === true &&
              operandsTyped(resource, branch) &&
              branchesTyped(branch)),
        )
      );
    });
  return input.filter === undefined || branchesTyped(input.filter);
}

function contractAccepts(resource: Resource, input: Input): boolean {
  if (!typed(resource, input)) return false;
  if (input.filter !== undefined && !clauseOk(resource, input.filter, 0)) return false;
  if (!sortOk(resource, input.sort)) return false;
  // "From 1."
  return [input.page, input.limit].every((n) => n === undefined || (n as number) >= 1);
}

// ---------------------------------------------------------------------------------------------
// Draws
// ---------------------------------------------------------------------------------------------

const OPERATORS = [
  "$eq",
  "$ne",
  "$gt",
  "$gte",
  "$lt",
  "$lte",
  "$in",
  "$nin",
  "$exists",
  "$regex",
  "$options",
  "$all",
  "$size",
  "$elemMatch",
  "$where",
  "$foo",
];

const noNul = (s: string) => !s.includes("\u0000");
const isoDates = fc.constantFrom(
  "2031-01-01",
  "2031-01-01T09:30:00Z",
  "2031-06-15T23:59:59.123+02:00",
  "2031-01-01T09:30Z",
  "2031-02-30",
  "2031-01-01T09:30:00",
  "March 7, 2031",
  "1700000000000",
);
const ids = fc.constantFrom(
  "0123456789abcdef01234567",
  "0123456789ABCDEF01234567",
  "0123456789abcdef0123456",
  "zzzzzzzzzzzzzzzzzzzzzzzz",
);
const words = fc.constantFrom(
  "draft",
  "live",
  "red",
  "blue",
  "new",
  "sale",
  "a",
  "5",
  "true",
  "a,b",
);
const strings = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 6 }).filter(noNul) },
  { weight: 3, arbitrary: words },
  { weight: 1, arbitrary: fc.constant("x".repeat(1001)) },
);
const numbers = fc.oneof(fc.integer({ min: -3, max: 5 }), fc.constantFrom(1.5, 1e9));
const scalars = fc.oneof(
  { weight: 3, arbitrary: strings },
  { weight: 2, arbitrary: numbers },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: isoDates },
  { weight: 1, arbitrary: ids },
  { weight: 1, arbitrary: fc.constant(null) },
);
const lists = fc.oneof(
  { weight: 5, arbitrary: fc.array(scalars, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 101 }, () => "a")) },
  { weight: 1, arbitrary: words },
);
const regexes = fc.constantFrom("^a", "b.*", "[a-z]+", "(", "a\u0000", "y".repeat(201), 3);
const flags = fc.constantFrom("i", "imsx", "", "ii", "q", "xx", 1);

/** A value for `field` that is usually well typed, so many draws reach the database. */
function plausible(field: FieldDescriptor | undefined): fc.Arbitrary<unknown> {
  const target = field?.kind === "array" && field.items ? field.items : field;
  if (target?.enum) return fc.constantFrom(...target.enum);
  switch (target?.kind) {
    case "string":
      return fc.string({ maxLength: 4 }).filter(noNul);
    case "number":
      return fc.integer({ min: 0, max: 5 });
    case "boolean":
      return fc.boolean();
    case "date":
      return fc.constantFrom("2031-01-01", "2031-01-01T09:30:00Z");
    case "objectId":
      return fc.constant("0123456789abcdef01234567");
    default:
      return scalars;
  }
}

function operandFor(operator: string, field: FieldDescriptor | undefined): fc.Arbitrary<unknown> {
  switch (operator) {
    case "$in":
    case "$nin":
      return fc.oneof(fc.array(plausible(field), { maxLength: 3 }), lists);
    case "$exists":
      return fc.oneof(fc.boolean(), scalars);
    case "$regex":
      return regexes;
    case "$options":
      return flags;
    default:
      return fc.oneof(plausible(field), scalars);
  }
}

/** Any operators (allowed or not, forbidden ones included) with any operands. */
function operatorObject(field: FieldDescriptor | undefined): fc.Arbitrary<PlainObject> {
  return fc
    .uniqueArray(fc.constantFrom(...OPERATORS), { maxLength: 3 })
    .chain((operators) =>
      fc
        .tuple(...operators.map((operator) => operandFor(operator, field)))
        .map((operands) => Object.fromEntries(operators.map((op, i) => [op, operands[i]]))),
    );
}

/** One or two of the field's own operators with well-typed operands. */
function plausibleOperators(field: FieldDescriptor): fc.Arbitrary<PlainObject> {
  const allowed = allowedOperators(field);
  const operand = (operator: string): fc.Arbitrary<unknown> => {
    if (operator === "$in" || operator === "$nin") {
      return fc.array(plausible(field), { minLength: 1, maxLength: 3 });
    }
    if (operator === "$exists") return fc.boolean();
    if (operator === "$regex") return fc.constantFrom("^a", "b.*", "[a-z]+");
    return plausible(field);
  };
  return fc
    .uniqueArray(fc.constantFrom(...allowed), { minLength: 1, maxLength: 2 })
    .chain((operators) =>
      fc.tuple(...operators.map(operand), fc.constantFrom(undefined, "i", "ms")).map((values) => {
        const object = Object.fromEntries(operators.map((op, i) => [op, values[i]]));
        if ("$regex" in object && values.at(-1) !== undefined) object.$options = values.at(-1);
        return object;
      }),
    );
}

function valueFor(resource: Resource, key: string): fc.Arbitrary<unknown> {
  const field = resource.description.byPath.get(key);
  const edges = fc.constantFrom(
    {},
    { $options: "i" },
    { $regex: "^a", $options: "q" },
    { $regex: "^a", $options: "ii" },
    { $in: "a,b" },
    { $exists: "true" },
    { $eq: { $gt: 1 } },
    { $gt: "2031-01-01" },
  );
  const junk = fc.oneof(
    { weight: 2, arbitrary: operatorObject(field) },
    { weight: 1, arbitrary: scalars },
    { weight: 1, arbitrary: lists },
    { weight: 2, arbitrary: edges },
  );
  if (!field) return junk;
  return fc.oneof(
    { weight: 3, arbitrary: plausible(field) },
    { weight: 3, arbitrary: plausibleOperators(field) },
    { weight: 2, arbitrary: junk },
  );
}

function namesOf(resource: Resource): string[] {
  const { rest, tools } = resource.views;
  return [
    ...new Set([
      ...rest.filterable,
      ...tools.filterable,
      "internalNote",
      "secret",
      "passwordHash",
      "nosuch",
      "specs.nosuch",
      "specs.size",
      "parts.qty",
      "tags",
      "__v",
      "id",
      "_id",
      "createdAt",
      "constructor",
      "$where",
      "$nor",
      "$text",
    ]),
  ];
}

function filterFor(resource: Resource, depth: number): fc.Arbitrary<PlainObject> {
  const filterable = resource.views.tools.filterable;
  const name = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...filterable) },
    { weight: 1, arbitrary: fc.constantFrom(...namesOf(resource)) },
  );
  const entry = name.chain((key) => valueFor(resource, key).map((value) => [key, value] as const));
  const fields = fc.array(entry, { maxLength: 3 }).map((entries) => Object.fromEntries(entries));
  if (depth >= 3) return fields;
  const branches = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.array(filterFor(resource, depth + 1), { minLength: 1, maxLength: 3 }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        [],
        Array.from({ length: 11 }, () => ({ [filterable[0]]: { $exists: true } })),
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom([{}], ["a"], "x") },
  );
  return fc
    .tuple(
      fields,
      fc.option(fc.constantFrom(...COMBINATORS), { freq: depth === 0 ? 3 : 5 }),
      branches,
    )
    .map(([clause, combinator, list]) => (combinator ? { ...clause, [combinator]: list } : clause));
}

function sortFor(resource: Resource): fc.Arbitrary<unknown> {
  const { rest, tools } = resource.views;
  const names = [
    ...new Set([
      ...rest.sortable,
      ...tools.sortable,
      "__v",
      "_id",
      "tags",
      "parts",
      "parts.label",
      "labels",
      "specs",
      "meta",
      "secret",
      "nosuch",
    ]),
  ];
  const valid = fc
    .array(fc.tuple(fc.constantFrom("", "-"), fc.constantFrom(...tools.sortable)), {
      minLength: 1,
      maxLength: 3,
    })
    .map((parts) => parts.map(([prefix, name]) => `${prefix}${name}`).join(","));
  const part = fc
    .tuple(fc.constantFrom("", "", "-", "+", " "), fc.constantFrom(...names))
    .map(([prefix, name]) => `${prefix}${name}`);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: valid },
    {
      weight: 2,
      arbitrary: fc.array(part, { minLength: 1, maxLength: 6 }).map((p) => p.join(",")),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("", ",id", "id,", "id,,id", null, 5, { id: 1 }, ["id"]),
    },
  );
}

function inputFor(resource: Resource): fc.Arbitrary<Input> {
  const paging = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(undefined, 1, 2, 3) },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, "2", null, 2 ** 31) },
  );
  const populatable = resource.views.tools.populatable.map((p) => p.path);
  const populate = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(undefined, [], populatable) },
    { weight: 1, arbitrary: fc.constantFrom(["nosuch"], "ownerId", [1], null) },
  );
  return fc.record(
    {
      filter: filterFor(resource, 0),
      sort: sortFor(resource),
      page: paging,
      limit: paging,
      populate,
    },
    { requiredKeys: [] },
  );
}

// ---------------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------------

/** Every field and sort key the input names is filterable/sortable on both surfaces or on neither. */
function sameVisibility(resource: Resource, input: Input): boolean {
  const { rest, tools } = resource.views;
  const keysSame = (clause: unknown): boolean =>
    !isRecord(clause) ||
    Object.entries(clause).every(([key, value]) =>
      COMBINATORS.includes(key)
        ? !Array.isArray(value) || value.every(keysSame)
        : rest.filterable.includes(key) === tools.filterable.includes(key),
    );
  const sortSame =
    typeof input.sort !== "string" ||
    input.sort
      .split(",")
      .map((part) => part.trim().replace(/^[-+]/, ""))
      .every((name) => rest.sortable.includes(name) === tools.sortable.includes(name));
  return keysSame(input.filter) && sortSame;
}

/** The sort spelled as the tools' schema spells it (no spaces, "+" or empty parts). */
const canonicalSort = (sort: unknown) =>
  sort === undefined ||
  (typeof sort === "string" && /^-?[^\s,+-][^\s,]*(,-?[^\s,+-][^\s,]*)*$/.test(sort));

const show = (value: unknown) =>
  JSON.stringify(value, (_k, v) => (v === undefined ? "(undefined)" : v));

describe(`list: the tools' contract and the core agree (seed ${SEED}, ${RUNS} runs per model)`, () => {
  test(`seed ${SEED}: the printed seed replays the same draws`, (t) => {
    t.diagnostic(`VIEW_SEED=${SEED} VIEW_RUNS=${RUNS}`);
    assert.ok(Number.isSafeInteger(SEED) && Number.isSafeInteger(RUNS) && RUNS > 0);
    for (const resource of Object.values(RESOURCES)) {
      const draw = (seed: number) => show(fc.sample(inputFor(resource), { seed, numRuns: 20 }));
      assert.equal(draw(SEED), draw(SEED), "the same seed draws the same inputs");
      assert.notEqual(draw(SEED), draw(SEED + 1), "another seed draws other inputs");
    }
  });

  for (const [name, resource] of Object.entries(RESOURCES)) {
    test(`${name}: what the contract accepts, list() over MCP accepts; what it refuses, list() refuses`, async (t) => {
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(inputFor(resource), async (input) => {
          const expected = contractAccepts(resource, input);
          const actual = await core(resource, "mcp", input);
          if (actual.ok) accepted += 1;
          assert.equal(
            actual.ok,
            expected,
            `contract ${expected ? "accepts" : "refuses"}, core ${actual.ok ? "accepts" : `refuses: ${show(actual.fields)}`}: ${show(input)}`,
          );
        }),
        { seed: SEED, numRuns: RUNS },
      );
      // The draws must reach the database often enough to mean something.
      t.diagnostic(`${accepted} of ${RUNS} inputs accepted`);
      assert.ok(accepted >= RUNS / 10, `only ${accepted} of ${RUNS} inputs were accepted`);
    });

    test(`${name}: REST and MCP agree wherever their views are the same`, async (t) => {
      let compared = 0;
      await fc.assert(
        fc.asyncProperty(inputFor(resource), async (input) => {
          fc.pre(sameVisibility(resource, input));
          const mcp = await core(resource, "mcp", input);
          const rest = await core(resource, "rest", input);
          if (mcp.ok)
            assert.ok(rest.ok, `MCP accepts, REST refuses ${show(rest.fields)}: ${show(input)}`);
          if (typed(resource, input) && canonicalSort(input.sort)) {
            compared += 1;
            assert.equal(
              rest.ok,
              mcp.ok,
              `typed input: REST ${rest.ok ? "accepts" : `refuses ${show(rest.fields)}`}, MCP ${mcp.ok ? "accepts" : `refuses ${show(mcp.fields)}`}: ${show(input)}`,
            );
          }
        }),
        { seed: SEED + 1, numRuns: RUNS },
      );
      t.diagnostic(`${compared} typed inputs compared`);
      assert.ok(compared >= RUNS / 10, `only ${compared} typed inputs were compared`);
    });
  }
});

describe("list: sort and the described limits", () => {
  const gadgets = RESOURCES.gadgets;

  test("sort offers scalar paths only: never a path inside an array, an object, Mixed or __v", () => {
    for (const view of [gadgets.views.rest, gadgets.views.tools]) {
      for (const path of ["parts", "parts.label", "parts.qty", "labels", "specs", "meta", "__v"]) {
        assert.ok(!view.sortable.includes(path), `${view.surface} sorts on ${path}`);
      }
      for (const path of ["name", "specs.weight", "specs.size.w", "releasedAt", "id"]) {
        assert.ok(view.sortable.includes(path), `${view.surface} cannot sort on ${path}`);
      }
    }
    assert.ok(!gadgets.views.tools.sortable.includes("internalCode"));
    assert.ok(gadgets.views.rest.sortable.includes("internalCode"));
  });

  test("__v and array paths are refused as sorts on REST and MCP alike", async () => {
    for (const resource of Object.values(RESOURCES)) {
      for (const sort of ["__v", "-__v", "tags", "parts.label", "_id"]) {
        if (resource.views.rest.sortable.includes(sort)) continue;
        for (const transport of ["rest", "mcp"] as const) {
          const outcome = await core(resource, transport, { sort });
          assert.equal(
            outcome.ok,
            false,
            `${transport} sorts ${resource.model.modelName} by ${sort}`,
          );
        }
      }
    }
  });

  test("enums offer no $regex, and the core refuses one on both surfaces", async () => {
    const status = contractOf(gadgets).schema.properties?.filter?.properties?.status;
    assert.ok(status && !JSON.stringify(status).includes("$regex"));
    for (const transport of ["rest", "mcp"] as const) {
      const outcome = await core(gadgets, transport, { filter: { status: { $regex: "dr" } } });
      assert.equal(outcome.ok, false, transport);
      assert.match(Object.values(outcome.fields).join(" "), /not (an )?allowed/);
    }
  });

  test("the descriptions state every limit the oracle above applies", () => {
    for (const resource of Object.values(RESOURCES)) {
      const { schema } = contractOf(resource);
      const filter = schema.properties?.filter?.description ?? "";
      for (const said of [
        "Each field: a value of its type, or a non-empty {operator: value}.",
        "Operators: $eq, $ne, $in, $nin, $exists",
        "Strings ≤1000 chars.",
        "$in/$nin: a list of ≤100 values.",
        "$exists: a boolean.",
        "$regex: JS regex ≤200 chars without NUL, with optional $options: flags imsx.",
        "$or/$and: 1-10 non-empty filters like this one, nested ≤2.",
      ]) {
        assert.ok(filter.includes(said), `${resource.model.modelName}: "${said}" in "${filter}"`);
      }
      // Every filterable field's operators, as the description gives them, are the core's.
      const { operatorsOf } = contractOf(resource);
      for (const path of resource.views.tools.filterable) {
        const field = resource.description.byPath.get(path);
        if (!field || !schema.properties?.filter?.properties?.[path]?.anyOf) continue;
        assert.deepEqual([...operatorsOf(path)].sort(), [...allowedOperators(field)].sort(), path);
      }
      if (resource !== RESOURCES.foods) assert.match(filter, /Ids \([^)]+\): 24 hex chars\./);
      assert.match(filter, /Dates \([^)]+\): ISO 8601 date or date-time with zone\./);
      assert.match(
        schema.properties?.sort?.description ?? "",
        /^≤5 comma-separated, "-" for descending: /,
      );
      assert.equal(schema.properties?.page?.description, "From 1.");
      assert.match(schema.properties?.limit?.description ?? "", /^From 1, default/);
    }
  });
});
