/**
 * Values for a generated schema (schemaSpec.ts): valid create bodies, merge patches (written
 * abstractly, then resolved against the document they patch), arbitrary edits of a valid body
 * for the "schema and server agree" property, and what a read must show after a patch.
 */
import fc from "fast-check";
import {
  DEFAULT_DATE,
  type FieldSpec,
  type FieldsSpec,
  hasDefault,
  isScalar,
  mustStay,
  type ScalarField,
  type ScalarSpec,
  type SchemaSpec,
} from "./schemaSpec.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** What the value generators may produce; widened as the fixes they depend on land. */
export interface ValueOptions {
  /** Ids of the seeded documents refs point at. */
  refIds: readonly string[];
  /** Patches may set `null` on a field with a default (h22-shape: it stores the default). */
  nullOnDefault: boolean;
  /** Refs may be written as an object carrying the id, as a populated read shows them. */
  refObjects: boolean;
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

// ---- Valid values --------------------------------------------------------------------------

/** Text FerretDB stores as given (no NUL), within `maxlength` as Mongoose counts it (UTF-16). */
function text(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc
    .string({ unit: "grapheme", minLength, maxLength })
    .filter(
      (value) =>
        !value.includes("\u0000") && value.length >= minLength && value.length <= maxLength,
    );
}

const date = fc
  .date({
    min: new Date("1970-01-01T00:00:00Z"),
    max: new Date("2100-12-31T23:59:59Z"),
    noInvalidDate: true,
  })
  .chain((value) =>
    fc.constantFrom(
      value.toISOString(),
      value.toISOString().slice(0, 10),
      // The day's leap second, as RFC 3339 writes it: the server stores the next second.
      `${value.toISOString().slice(0, 10)}T23:59:60Z`,
    ),
  );

function scalarValue(
  spec: ScalarSpec & Partial<ScalarField>,
  options: ValueOptions,
): fc.Arbitrary<Json> {
  switch (spec.kind) {
    case "string":
      if (spec.enum) return fc.constantFrom(...spec.enum);
      // Mongoose's `required` refuses the empty string.
      return text(spec.required ? 1 : 0, Math.min(spec.maxlength ?? 8, 8));
    case "number": {
      const min = spec.min ?? -1e6;
      const max = spec.max ?? 1e6;
      return fc.oneof(
        fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
        fc
          .double({ min, max, noNaN: true, noDefaultInfinity: true })
          .map((n) => (Object.is(n, -0) ? 0 : n)),
      );
    }
    case "boolean":
      return fc.boolean();
    case "date":
      return date;
    case "ref": {
      const id = fc.constantFrom(...options.refIds);
      if (!options.refObjects) return id;
      // The rest of such an object is the referenced document's fields: ignored.
      return fc.oneof(
        id,
        id.map((value) => ({ id: value })),
        id.map((value) => ({ _id: value })),
        id.map((value) => ({ id: value, name: "ignored", createdAt: "2031-01-01T00:00:00.000Z" })),
      );
    }
  }
}

const mapKey = fc.stringMatching(/^[a-z]{1,3}$/);
const mapValue = (of: "number" | "string"): fc.Arbitrary<Json> =>
  of === "number" ? fc.integer() : text(0, 6);
const mixedScalar: fc.Arbitrary<Json> = fc.oneof(
  text(0, 6),
  fc.integer({ min: -1000, max: 1000 }),
  fc
    .double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })
    .map((n) => (Object.is(n, -0) ? 0 : n)),
  fc.boolean(),
);
/** Mixed values as the schema states them: a scalar, an object, or a list (no list of lists). */
const mixedValue: fc.Arbitrary<Json> = fc.oneof(
  mixedScalar,
  fc.dictionary(mapKey, mixedScalar, { maxKeys: 3, noNullPrototype: true }),
  fc.array(mixedScalar, { maxLength: 3 }),
);

function objectValue(fields: FieldsSpec, options: ValueOptions): fc.Arbitrary<JsonObject> {
  const model = Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [name, fieldValue(field, options)]),
  );
  const requiredKeys = Object.entries(fields)
    .filter(([, field]) => mustStay(field) || (isScalar(field) && field.unique))
    .map(([name]) => name);
  return fc.record(model, { requiredKeys }) as fc.Arbitrary<JsonObject>;
}

function fieldValue(field: FieldSpec, options: ValueOptions): fc.Arbitrary<Json> {
  if (isScalar(field)) return scalarValue(field, options);
  switch (field.kind) {
    case "mixed":
      return mixedValue;
    case "map":
      return fc.dictionary(mapKey, mapValue(field.of), { maxKeys: 3, noNullPrototype: true });
    case "object":
      return objectValue(field.fields, options);
    case "array":
      return fc.array(scalarValue(field.of, options), { maxLength: 3 });
    case "subdocs":
      return fc.array(objectValue(field.fields, options), { maxLength: 3 });
  }
}

/** A valid create body. Unique fields get fresh values at send time (`freshUnique`). */
export const bodyArb = (spec: SchemaSpec, options: ValueOptions): fc.Arbitrary<JsonObject> =>
  objectValue(spec.fields, options);

let uniqueCounter = 0;

/** The body with a never-used value in each unique field, so that no write collides. */
export function freshUnique(spec: SchemaSpec, body: JsonObject): JsonObject {
  const copy: JsonObject = { ...body };
  for (const [name, field] of Object.entries(spec.fields)) {
    if (isScalar(field) && field.unique && name in copy) {
      uniqueCounter += 1;
      copy[name] = `u${process.pid}-${uniqueCounter}`;
    }
  }
  return copy;
}

// ---- Merge patches -------------------------------------------------------------------------

/** A subdocument array in a patch: new items, or items of the current array (by index) kept with their `id`. */
type ItemPatch = { new: JsonObject } | { keep: number; set: JsonObject };
/** An abstract patch: plain JSON, except for subdocument arrays, resolved against the document. */
export type AbstractPatch = { [key: string]: Json | { items: ItemPatch[] } };

function mayBeNull(field: FieldSpec, options: ValueOptions): boolean {
  return !mustStay(field) && (options.nullOnDefault || !hasDefault(field));
}

function patchValue(field: FieldSpec, options: ValueOptions): fc.Arbitrary<unknown> {
  const choices: fc.Arbitrary<unknown>[] = [fieldValue(field, options)];
  if (mayBeNull(field, options)) choices.push(fc.constant(null));
  if (field.kind === "object") choices.push(patchOf(field.fields, options));
  if (field.kind === "map") {
    choices.push(
      fc.dictionary(mapKey, fc.option(mapValue(field.of)), { maxKeys: 3, noNullPrototype: true }),
    );
  }
  if (field.kind === "mixed") {
    choices.push(
      fc.dictionary(mapKey, fc.option(mixedScalar), { maxKeys: 3, noNullPrototype: true }),
    );
  }
  if (field.kind === "subdocs") {
    const item = objectValue(field.fields, options);
    const items = fc.array(
      fc.oneof(
        item.map((value) => ({ new: value })),
        fc.record({ keep: fc.nat(5), set: item }),
      ),
      { maxLength: 3 },
    );
    choices.push(items.map((list) => ({ items: list })));
  }
  return fc.oneof(...choices);
}

function patchOf(fields: FieldsSpec, options: ValueOptions): fc.Arbitrary<AbstractPatch> {
  const model = Object.fromEntries(
    Object.entries(fields)
      // Unique values are not patched: two documents could be given the same one.
      .filter(([, field]) => !(isScalar(field) && field.unique))
      .map(([name, field]) => [name, patchValue(field, options)]),
  );
  return fc.record(model, { requiredKeys: [] }) as fc.Arbitrary<AbstractPatch>;
}

/** A patch that names at least one field (`{}` is accepted and changes nothing; regressions.ts has it). */
export const patchArb = (spec: SchemaSpec, options: ValueOptions): fc.Arbitrary<AbstractPatch> =>
  patchOf(spec.fields, options).filter((patch) => Object.keys(patch).length > 0);

const isItems = (value: unknown): value is { items: ItemPatch[] } =>
  isObject(value) &&
  Array.isArray((value as { items?: unknown }).items) &&
  Object.keys(value).length === 1;

/**
 * The concrete patch: kept items are the current item (with its `id`) with some fields set
 * to new values; the array is replaced whole, as RFC 7396 replaces every array.
 */
export function resolvePatch(
  fields: FieldsSpec,
  patch: AbstractPatch,
  current: JsonObject,
): JsonObject {
  const resolved: JsonObject = {};
  for (const [key, value] of Object.entries(patch)) {
    const field = fields[key];
    if (field?.kind === "subdocs" && isItems(value)) {
      const existing = Array.isArray(current[key]) ? (current[key] as JsonObject[]) : [];
      resolved[key] = value.items.flatMap((item): Json[] => {
        if ("new" in item) return [item.new];
        if (existing.length === 0) return [];
        const kept = existing[item.keep % existing.length];
        return [{ ...kept, ...item.set }];
      });
    } else if (field?.kind === "object" && isObject(value) && !isItems(value)) {
      const inner = isObject(current[key]) ? (current[key] as JsonObject) : {};
      resolved[key] = resolvePatch(field.fields, value as AbstractPatch, inner);
    } else {
      resolved[key] = value as Json;
    }
  }
  return resolved;
}

// ---- What a read shows ---------------------------------------------------------------------

/** A written date as a read shows it; a leap second (`…T23:59:60Z`) reads as the next second. */
function readDate(value: string): string {
  const leap = /^(.+T23:59:)60Z$/.exec(value);
  if (!leap) return new Date(value).toISOString();
  return new Date(new Date(`${leap[1]}59Z`).getTime() + 1000).toISOString();
}

/** Stands for a value the server chooses (a new subdocument's id, `updatedAt`). */
const ANY = "<any>";

function normalizeScalar(field: ScalarSpec, value: Json): Json {
  if (field.kind === "date" && typeof value === "string") return readDate(value);
  // A ref written (or populated) as an object stands for its id.
  if (field.kind === "ref" && isObject(value)) return (value.id ?? value._id) as Json;
  return value;
}

function defaultOf(field: ScalarField): Json {
  return field.kind === "date" ? DEFAULT_DATE : (field.default as Json);
}

/**
 * A document as a read shows it, given its JSON fields: defaults filled in, missing arrays as
 * `[]`, dates as date-times, subdocument items with an `id` (ANY when the server picks it),
 * and empty objects left out where Mongoose's `minimize` (on by default) stores none: a
 * nested object, a Mixed value (a Map keeps its `{}`).
 */
export function asRead(fields: FieldsSpec, value: JsonObject, depth = 0): JsonObject {
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) if (!(key in fields)) out[key] = item;
  for (const [name, field] of Object.entries(fields)) {
    const current = value[name];
    if (isScalar(field)) {
      if (current !== undefined && current !== null) out[name] = normalizeScalar(field, current);
      else if (field.default !== undefined) out[name] = defaultOf(field);
      continue;
    }
    switch (field.kind) {
      case "array":
        out[name] = Array.isArray(current) ? current.map((v) => normalizeScalar(field.of, v)) : [];
        break;
      case "subdocs":
        out[name] = Array.isArray(current)
          ? current.map((v) => {
              const item = asRead(field.fields, v as JsonObject, depth + 1);
              return { ...item, id: (v as JsonObject).id ?? ANY };
            })
          : [];
        break;
      case "object": {
        const inner = asRead(field.fields, isObject(current) ? current : {}, depth + 1);
        if (Object.keys(inner).length > 0) out[name] = inner;
        break;
      }
      case "mixed":
        // Mongoose's `minimize` (on by default) stores no empty object.
        if (
          current !== undefined &&
          current !== null &&
          !(isObject(current) && Object.keys(current).length === 0)
        ) {
          out[name] = current;
        }
        break;
      default:
        if (current !== undefined && current !== null) out[name] = current;
    }
  }
  return out;
}

/** `actual` with every value that `expected` leaves to the server (ANY) replaced by ANY. */
export function maskAny(expected: unknown, actual: unknown): unknown {
  if (expected === ANY) return ANY;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    return actual.map((item, i) => maskAny(expected[i], item));
  }
  if (isObject(expected) && isObject(actual)) {
    return Object.fromEntries(
      Object.entries(actual).map(([key, item]) => [key, maskAny(expected[key], item)]),
    );
  }
  return actual;
}

// ---- Edits for "the schema and the server agree" -------------------------------------------

/**
 * Values an edit may put anywhere: some valid somewhere, most not, including keys no stored
 * object may have (refused by the schemas' `propertyNames` on Maps and Mixed values), strings
 * with characters outside the BMP (lengths count UTF-16 units, as the descriptions say), and
 * leap seconds (an RFC 3339 date-time that JavaScript's Date refuses; the server takes the
 * next second).
 */
const JUNK: Json[] = [
  null,
  "",
  "x",
  "red",
  "Ünï",
  "\u{1F95B}",
  "\u{1F95B}".repeat(6),
  "a\u{1F95B}b\u{10348}c",
  "2031-06-30T23:59:60Z",
  "2031-06-30T10:00:60Z",
  "abcdefghij",
  "2031-01-01",
  "2031-13-45",
  "2031-01-01T10:00:00Z",
  "2031-01-01T10:00:00+05:30",
  "2031-01-01t10:00:00z",
  "5",
  "true",
  "a\u0000b",
  "0123456789abcdef01234567",
  "zz",
  0,
  -1,
  3.5,
  1e9,
  -1e9,
  true,
  {},
  { a: 1 },
  { "a.b": 1 },
  { $x: 1 },
  { "": 1 },
  [],
  ["x"],
  [1],
  [{ a: 1 }],
];

export interface Edit {
  /** Which site (a path in the body, modulo their number). */
  site: number;
  action: { set: Json } | { remove: true } | { unknownKey: true };
}

export const editArb: fc.Arbitrary<Edit> = fc.record({
  site: fc.nat(50),
  action: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...JUNK).map((set) => ({ set })) },
    { weight: 1, arbitrary: fc.constant({ remove: true as const }) },
    { weight: 1, arbitrary: fc.constant({ unknownKey: true as const }) },
  ),
});

type Path = Array<string | number>;

/** Paths an edit may touch: every field of the spec where the body has a container for it. */
function sitesOf(fields: FieldsSpec, value: JsonObject, prefix: Path): Path[] {
  const sites: Path[] = [];
  for (const [name, field] of Object.entries(fields)) {
    if (isScalar(field) && field.unique) continue;
    const path = [...prefix, name];
    sites.push(path);
    const current = value[name];
    if (field.kind === "object" && isObject(current))
      sites.push(...sitesOf(field.fields, current, path));
    if ((field.kind === "array" || field.kind === "map") && current !== undefined) {
      const first = Array.isArray(current)
        ? current.length > 0
          ? 0
          : undefined
        : Object.keys(current ?? {})[0];
      if (first !== undefined) sites.push([...path, first]);
    }
    if (field.kind === "subdocs" && Array.isArray(current) && isObject(current[0])) {
      sites.push(...sitesOf(field.fields, current[0], [...path, 0]));
    }
  }
  return sites;
}

/** The body with one edit applied (a deep copy; the body itself is left alone). */
export function applyEdit(fields: FieldsSpec, body: JsonObject, edit: Edit): JsonObject {
  const copy = structuredClone(body);
  const sites = sitesOf(fields, copy, []);
  const path = sites[edit.site % sites.length];
  let parent: Json = copy;
  for (const key of path.slice(0, -1))
    parent = (parent as Record<string | number, Json>)[key as string];
  const last = path[path.length - 1];
  const container = parent as Record<string | number, Json>;
  if ("set" in edit.action) container[last] = structuredClone(edit.action.set);
  else if ("remove" in edit.action) {
    if (Array.isArray(container)) container.splice(Number(last), 1);
    else delete container[last];
  } else if (Array.isArray(container)) container.push("zz");
  else container.zz_unknown = 1;
  return copy;
}

/** One generated document's checks: its body, a patch for it, and an edit for each write. */
export interface DocCase {
  body: JsonObject;
  patch: AbstractPatch;
  createEdit: Edit;
  updateEdit: Edit;
}

/** A read with its populated refs (objects carrying `id`) as their ids; nothing else changed. */
export function refsAsIds(fields: FieldsSpec, value: JsonObject): JsonObject {
  const out: JsonObject = { ...value };
  const asId = (item: Json): Json => (isObject(item) ? (item.id as Json) : item);
  for (const [name, field] of Object.entries(fields)) {
    const current = value[name];
    if (current === undefined || current === null) continue;
    if (field.kind === "ref") out[name] = asId(current);
    else if (field.kind === "array" && field.of.kind === "ref" && Array.isArray(current)) {
      out[name] = current.map(asId);
    } else if (field.kind === "object" && isObject(current))
      out[name] = refsAsIds(field.fields, current);
    else if (field.kind === "subdocs" && Array.isArray(current)) {
      out[name] = current.map((item) => (isObject(item) ? refsAsIds(field.fields, item) : item));
    }
  }
  return out;
}
