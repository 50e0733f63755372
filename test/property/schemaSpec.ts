/**
 * Generated Mongoose schemas for the property test: a small description of a schema (a
 * `SchemaSpec`), the fast-check arbitrary that generates them, and the real Mongoose schema
 * each one becomes. The description stays plain JSON so that a shrunk failure can be printed
 * and pasted into regressions.ts as it is.
 */
import fc from "fast-check";
import { Schema, type SchemaDefinition } from "mongoose";

/** The model every generated ref points at (a few documents are seeded before the run). */
export const TARGET_MODEL = "PropTarget";

export type ScalarSpec =
  | { kind: "string"; enum?: string[]; maxlength?: number }
  | { kind: "number"; min?: number; max?: number }
  | { kind: "boolean" }
  | { kind: "date" }
  | { kind: "ref" };

/** Field options that go with a scalar: `required`, `default` (never on refs), `unique`. */
interface ScalarOptions {
  required?: boolean;
  default?: string | number | boolean;
  /** Top-level, required strings only: optional unique fields would collide on "missing". */
  unique?: boolean;
  /** `immutable: true`: set on create only (lockedPaths.test.ts marks some). */
  immutable?: boolean;
}

export type FieldSpec =
  | (ScalarSpec & ScalarOptions)
  | { kind: "mixed" }
  | { kind: "map"; of: "number" | "string" }
  | { kind: "object"; fields: FieldsSpec }
  | { kind: "array"; of: ScalarSpec }
  | { kind: "subdocs"; fields: FieldsSpec };

export type FieldsSpec = Record<string, FieldSpec>;

export interface SchemaSpec {
  fields: FieldsSpec;
  /** Which refs are populated by default (`populatePaths`), as dotted paths. */
  populate?: string[];
}

export type ScalarField = ScalarSpec & ScalarOptions;

export const isScalar = (field: FieldSpec): field is ScalarField =>
  ["string", "number", "boolean", "date", "ref"].includes(field.kind);

/** Dates a default may take: a fixed instant, written as the server answers it. */
export const DEFAULT_DATE = "2030-06-15T12:00:00.000Z";

// ---- The arbitrary -------------------------------------------------------------------------

/** What the generator may produce; widened as the fixes the property depends on land. */
export interface SpecOptions {
  /** Generate defaults (and, with `nullOnDefault` in values.ts, nulls on them). */
  defaults: boolean;
  /** Populate some refs by default (`populatePaths`). */
  populate: boolean;
}

const stringSpec = fc.oneof(
  fc.record(
    { kind: fc.constant("string" as const), maxlength: fc.integer({ min: 1, max: 8 }) },
    { requiredKeys: ["kind"] },
  ),
  fc.record({
    kind: fc.constant("string" as const),
    enum: fc.uniqueArray(fc.constantFrom("red", "green", "blue", "x-ray", "Ünï"), {
      minLength: 1,
      maxLength: 3,
    }),
  }),
);

const numberSpec = fc
  .record(
    {
      kind: fc.constant("number" as const),
      min: fc.integer({ min: -50, max: 10 }),
      max: fc.integer({ min: 10, max: 1000 }),
    },
    { requiredKeys: ["kind"] },
  )
  .map((spec) => spec);

const scalarSpec: fc.Arbitrary<ScalarSpec> = fc.oneof(
  stringSpec,
  numberSpec,
  fc.constant({ kind: "boolean" as const }),
  fc.constant({ kind: "date" as const }),
  fc.constant({ kind: "ref" as const }),
);

/** A default value valid for the scalar, or none. */
function defaultFor(spec: ScalarSpec): fc.Arbitrary<string | number | boolean | undefined> {
  switch (spec.kind) {
    case "string":
      return spec.enum ? fc.constantFrom(...spec.enum) : fc.constant("d");
    case "number":
      return fc.integer({ min: spec.min ?? 0, max: spec.max ?? 100 });
    case "boolean":
      return fc.boolean();
    case "date":
      return fc.constant(DEFAULT_DATE);
    default:
      return fc.constant(undefined);
  }
}

function scalarField(options: SpecOptions): fc.Arbitrary<ScalarField> {
  return scalarSpec.chain((spec) =>
    fc
      .record({
        required: fc.boolean(),
        default:
          options.defaults && spec.kind !== "ref" ? fc.option(defaultFor(spec)) : fc.constant(null),
      })
      .map(({ required, default: value }) => {
        const field: ScalarField = { ...spec };
        if (required) field.required = true;
        if (value !== null && value !== undefined) field.default = value;
        return field;
      }),
  );
}

const fieldNames = (count: number) => Array.from({ length: count }, (_, i) => `f${i}`);

function fieldsOf(field: fc.Arbitrary<FieldSpec>, max: number): fc.Arbitrary<FieldsSpec> {
  return fc
    .array(field, { minLength: 1, maxLength: max })
    .map((list) => Object.fromEntries(fieldNames(list.length).map((name, i) => [name, list[i]])));
}

export function schemaSpecArb(options: SpecOptions): fc.Arbitrary<SchemaSpec> {
  const leaf: fc.Arbitrary<FieldSpec> = fc.oneof(
    { weight: 4, arbitrary: scalarField(options) },
    { weight: 1, arbitrary: fc.constant({ kind: "mixed" as const }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("map" as const),
        of: fc.constantFrom("number" as const, "string" as const),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("array" as const), of: scalarSpec }) },
  );
  // One level of nesting below the top: objects and subdocument arrays hold leaves only.
  const nested: fc.Arbitrary<FieldSpec> = fc.oneof(
    { weight: 5, arbitrary: leaf },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("object" as const), fields: fieldsOf(leaf, 3) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("subdocs" as const), fields: fieldsOf(leaf, 3) }),
    },
  );
  return fc
    .record({ fields: fieldsOf(nested, 6), unique: fc.boolean() })
    .map(({ fields, unique }): SchemaSpec => {
      // A unique, required string at the top: the one shape whose values generators keep apart.
      if (unique)
        fields[`f${Object.keys(fields).length}`] = { kind: "string", required: true, unique: true };
      return options.populate ? { fields, populate: refPaths(fields) } : { fields };
    });
}

/** Every ref's dotted path (top level, arrays of refs, inside objects and subdocuments). */
function refPaths(fields: FieldsSpec, prefix = ""): string[] {
  return Object.entries(fields).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    if (field.kind === "ref" || (field.kind === "array" && field.of.kind === "ref")) return [path];
    if (field.kind === "object" || field.kind === "subdocs") {
      return refPaths(field.fields, `${path}.`);
    }
    return [];
  });
}

// ---- The Mongoose schema -------------------------------------------------------------------

function scalarType(spec: ScalarSpec): unknown {
  switch (spec.kind) {
    case "string":
      return String;
    case "number":
      return Number;
    case "boolean":
      return Boolean;
    case "date":
      return Date;
    case "ref":
      return Schema.Types.ObjectId;
  }
}

function scalarDefinition(spec: ScalarField | ScalarSpec): Record<string, unknown> {
  const definition: Record<string, unknown> = { type: scalarType(spec) };
  if (spec.kind === "string") {
    if (spec.enum) definition.enum = spec.enum;
    if (spec.maxlength !== undefined) definition.maxlength = spec.maxlength;
  }
  if (spec.kind === "number") {
    if (spec.min !== undefined) definition.min = spec.min;
    if (spec.max !== undefined) definition.max = spec.max;
  }
  if (spec.kind === "ref") definition.ref = TARGET_MODEL;
  const options = spec as ScalarOptions;
  if (options.required) definition.required = true;
  if (options.unique) definition.unique = true;
  if (options.immutable) definition.immutable = true;
  if (options.default !== undefined) {
    definition.default = spec.kind === "date" ? new Date(String(options.default)) : options.default;
  }
  return definition;
}

function definitionOf(field: FieldSpec): unknown {
  if (isScalar(field)) return scalarDefinition(field);
  switch (field.kind) {
    case "mixed":
      return Schema.Types.Mixed;
    case "map":
      return { type: Map, of: field.of === "number" ? Number : String };
    case "object":
      return definitionsOf(field.fields);
    case "array":
      return [scalarDefinition(field.of)];
    case "subdocs":
      return [definitionsOf(field.fields)];
  }
}

function definitionsOf(fields: FieldsSpec): SchemaDefinition {
  return Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [name, definitionOf(field)]),
  ) as SchemaDefinition;
}

export function toMongooseSchema(spec: SchemaSpec): Schema {
  return new Schema(definitionsOf(spec.fields), { timestamps: true });
}

/** Whether a field, or anything below it, must be present (a `required` without a default). */
export function mustStay(field: FieldSpec): boolean {
  if (isScalar(field)) return Boolean(field.required) && field.default === undefined;
  if (field.kind === "object") return Object.values(field.fields).some(mustStay);
  return false;
}

/** Whether a field, or anything below it in a nested object, has a default. */
export function hasDefault(field: FieldSpec): boolean {
  if (isScalar(field)) return field.default !== undefined;
  if (field.kind === "object") return Object.values(field.fields).some(hasDefault);
  return false;
}
