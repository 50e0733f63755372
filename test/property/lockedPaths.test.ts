// Issue #35 item 3: read-only and immutable paths at every depth, on generated schemas. For a
// generated schema (schemaSpec.ts), some scalar and list paths (top level, inside nested
// objects, inside subdocument array items) are marked read-only (`readOnlyFields`) or
// `immutable`. For documents generated for it, on REST, MCP and AI tools:
//   a. the read sent back whole is accepted and changes nothing;
//   b. the read with one locked value changed is refused (4xx, MCP: an `isError` result)
//      naming that path, and nothing is written.
// Seeded and bounded: PROPERTY_SEED, PROPERTY_SCHEMAS and PROPERTY_DOCS override the defaults.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { toUser } from "../../src/auth/userPlugin.js";
import type { User as Caller } from "../../src/core/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { listen } from "../helpers/mcpClients.js";
import { User } from "../helpers/models.js";
import { SIGNED_IN } from "../helpers/permissions.js";
import { JWT_SECRET } from "../helpers/restApp.js";
import { sameData } from "../roundtrip/sameData.js";
import {
  type FieldSpec,
  type FieldsSpec,
  isScalar,
  type ScalarSpec,
  type SchemaSpec,
  schemaSpecArb,
  TARGET_MODEL,
  toMongooseSchema,
} from "./schemaSpec.js";
import { aiSurface, type GenSurface, mcpSurface, type Outcome, restSurface } from "./surfaces.js";
import { bodyArb, freshUnique, type JsonObject, type ValueOptions } from "./values.js";

useTestDatabase("property_locked");

const SEED = Number(process.env.PROPERTY_SEED ?? 35_03_2026);
const SCHEMAS = Number(process.env.PROPERTY_SCHEMAS ?? 8);
const DOCS = Number(process.env.PROPERTY_DOCS ?? 2);

type Lock = "none" | "readOnly" | "immutable";

/** A place a value can be locked: its dotted path, and how to reach it in a read. */
interface Spot {
  path: string;
  field: FieldSpec;
  /** Inside a subdocument array's items: `f2.f0` is `f2[i].f0`. */
  items?: { array: string; name: string };
  nested?: { parent: string; name: string };
}

function spotsOf(fields: FieldsSpec): Spot[] {
  const lockable = (field: FieldSpec) => isScalar(field) || field.kind === "array";
  const spots: Spot[] = [];
  for (const [name, field] of Object.entries(fields)) {
    if (lockable(field) && !(isScalar(field) && field.unique)) spots.push({ path: name, field });
    if (field.kind === "object" || field.kind === "subdocs") {
      for (const [child, inner] of Object.entries(field.fields)) {
        if (!lockable(inner)) continue;
        const path = `${name}.${child}`;
        spots.push(
          field.kind === "object"
            ? { path, field: inner, nested: { parent: name, name: child } }
            : { path, field: inner, items: { array: name, name: child } },
        );
      }
    }
  }
  return spots;
}

interface LockedSpec {
  spec: SchemaSpec;
  readOnly: string[];
  immutable: string[];
}

/** Marks the immutable spots in the spec (scalars only: the option is a scalar's). */
function withImmutable(fields: FieldsSpec, paths: ReadonlySet<string>, prefix = ""): FieldsSpec {
  return Object.fromEntries(
    Object.entries(fields).map(([name, field]) => {
      const path = `${prefix}${name}`;
      if (isScalar(field) && paths.has(path)) return [name, { ...field, immutable: true }];
      if (field.kind === "object" || field.kind === "subdocs") {
        return [name, { ...field, fields: withImmutable(field.fields, paths, `${path}.`) }];
      }
      return [name, field];
    }),
  );
}

const lockedSpecArb: fc.Arbitrary<LockedSpec> = schemaSpecArb({ defaults: true, populate: false })
  .chain((spec) => {
    const spots = spotsOf(spec.fields);
    return fc.tuple(
      fc.constant(spec),
      fc.constant(spots),
      fc.array(fc.constantFrom<Lock>("none", "readOnly", "immutable"), {
        minLength: spots.length,
        maxLength: spots.length,
      }),
    );
  })
  .filter(([, , locks]) => locks.some((lock) => lock !== "none"))
  .map(([spec, spots, locks]) => {
    const readOnly: string[] = [];
    const immutable: string[] = [];
    spots.forEach((spot, i) => {
      if (locks[i] === "readOnly") readOnly.push(spot.path);
      else if (locks[i] === "immutable" && isScalar(spot.field)) immutable.push(spot.path);
    });
    return {
      spec: { ...spec, fields: withImmutable(spec.fields, new Set(immutable)) },
      readOnly,
      immutable,
    };
  });

/** A valid value of `field` other than `stored`, or undefined when there is none to pick. */
function otherValue(field: FieldSpec, stored: unknown, refIds: readonly string[]): unknown {
  if (field.kind === "array") {
    return Array.isArray(stored) && stored.length > 0 ? stored.slice(1) : undefined;
  }
  const spec = field as ScalarSpec;
  const pick = (candidates: unknown[]) => candidates.find((value) => value !== stored);
  switch (spec.kind) {
    case "string":
      return pick(spec.enum ?? ["q", "r"]);
    case "number":
      return pick([spec.min ?? 0, spec.max ?? 1, (spec.min ?? 0) + 1]);
    case "boolean":
      return typeof stored === "boolean" ? !stored : undefined;
    case "date":
      return pick(["2001-02-03T04:05:06.000Z", "2002-02-03T04:05:06.000Z"]);
    case "ref":
      return pick([...refIds]);
  }
}

/** `body` with the spot's value changed (in the first item for items), and the path to name. */
function changed(
  body: JsonObject,
  spot: Spot,
  refIds: readonly string[],
): { body: JsonObject; path: string } | undefined {
  const copy = structuredClone(body);
  let holder: JsonObject | undefined = copy;
  let key = spot.path;
  let path = spot.path;
  if (spot.nested) {
    const parent = copy[spot.nested.parent];
    holder = parent && typeof parent === "object" && !Array.isArray(parent) ? parent : undefined;
    key = spot.nested.name;
  } else if (spot.items) {
    const items = copy[spot.items.array];
    const first = Array.isArray(items) ? items[0] : undefined;
    holder = first && typeof first === "object" && !Array.isArray(first) ? first : undefined;
    key = spot.items.name;
    path = `${spot.items.array}.0.${spot.items.name}`;
  }
  if (!holder || holder[key] === undefined || holder[key] === null) return undefined;
  const value = otherValue(spot.field, holder[key], refIds);
  if (value === undefined) return undefined;
  holder[key] = value as JsonObject[string];
  return { body: copy, path };
}

function expectOk(outcome: Outcome, what: string): JsonObject {
  assert.ok(outcome.ok, `${what} was refused: ${outcome.raw.slice(0, 800)}`);
  return outcome.data;
}

describe("property: read-only and immutable paths at every depth, on REST, MCP and AI tools", () => {
  let user: TestUser;
  let caller: Caller;
  let options: ValueOptions;
  let counter = 0;
  let checked = 0;

  before(async () => {
    const Target =
      mongoose.models[TARGET_MODEL] ??
      mongoose.model(TARGET_MODEL, new Schema({ name: String }, { timestamps: true }));
    const targets = await Target.create([{ name: "t1" }, { name: "t2" }, { name: "t3" }]);
    const bootstrap = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } });
    user = await signUp(bootstrap.build(), "locked");
    const doc = await User.findById(user.userId);
    assert.ok(doc);
    caller = toUser(doc);
    options = {
      refIds: targets.map((target: { _id: unknown }) => String(target._id)),
      nullOnDefault: false,
      refObjects: false,
    };
    process.stdout.write(
      `# locked-paths seed ${SEED} (PROPERTY_SEED), ${SCHEMAS} schemas × ${DOCS} documents\n`,
    );
  });
  after(() => {
    process.stdout.write(`# locked values changed and refused: ${checked}\n`);
    for (const name of mongoose.modelNames())
      if (name.startsWith("PropLocked")) mongoose.deleteModel(name);
  });

  async function checkSchema(locked: LockedSpec, docs: JsonObject[]): Promise<void> {
    const { spec } = locked;
    counter += 1;
    const modelName = `PropLocked${counter}`;
    const prefix = `locked${counter}`;
    const Model = mongoose.model(modelName, toMongooseSchema(spec));
    await Model.init();
    // `/open` writes the documents (read-only paths included); `/locked` is under test.
    const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(`/open${counter}`, modelRouter(Model, { permissions: SIGNED_IN }))
      .register(
        `/locked${counter}`,
        modelRouter(Model, {
          permissions: SIGNED_IN,
          readOnlyFields: locked.readOnly,
          mcp: { toolPrefix: prefix, methods: ["create", "read", "update"] },
        }),
      );
    const express = app.build();
    const server = await listen(express);
    const rest = restSurface(app, express, modelName, `/locked${counter}`, user.token);
    rest.updateSchema = app.resources[1].views.rest.updateSchema;
    const surfaces: GenSurface[] = [
      rest,
      await mcpSurface(server.url, user.token, prefix),
      await aiSurface(app, caller, prefix),
    ];
    const spots = spotsOf(spec.fields).filter(
      (spot) => locked.readOnly.includes(spot.path) || locked.immutable.includes(spot.path),
    );
    try {
      for (const body of docs) {
        for (const surface of surfaces) {
          const at = (step: string) =>
            `${surface.name}: ${step} (read-only ${locked.readOnly}, immutable ${locked.immutable})`;
          const created = await request(express)
            .post(`/open${counter}`)
            .set({ Authorization: `Bearer ${user.token}` })
            .send(freshUnique(spec, body));
          assert.equal(created.status, 201, at(`create ${created.text.slice(0, 600)}`));
          const id = String(created.body.data.id);
          const read = expectOk(await surface.read(id), at("read"));
          // a. The read sent back whole changes nothing.
          const same = sameData(read, surface.updateSchema) as JsonObject;
          expectOk(
            await surface.update(id, same),
            at(`update with the read ${JSON.stringify(same)}`),
          );
          assert.deepEqual(
            expectOk(await surface.read(id), at("reread")),
            read,
            at("update(read)"),
          );
          // b. One locked value changed: refused, naming it, nothing written.
          for (const spot of spots) {
            const edit = changed(same, spot, options.refIds);
            if (!edit) continue;
            const outcome = await surface.update(id, edit.body);
            const shown = at(`${edit.path} changed: ${outcome.raw.slice(0, 600)}`);
            assert.ok(!outcome.ok, shown);
            assert.ok(outcome.status >= 400 && outcome.status < 500, shown);
            assert.ok(!outcome.protocolError, shown);
            assert.ok(outcome.raw.includes(edit.path), `the error names ${edit.path}: ${shown}`);
            assert.deepEqual(expectOk(await surface.read(id), at("reread")), read, shown);
            checked += 1;
          }
        }
      }
    } finally {
      for (const surface of surfaces) await surface.close();
      await server.close();
      mongoose.deleteModel(modelName);
    }
  }

  test("locked values sent back as read pass, changed ones are refused and write nothing", async () => {
    const cases = lockedSpecArb.chain((locked) =>
      fc.tuple(
        fc.constant(locked),
        fc.array(bodyArb(locked.spec, options), { minLength: 1, maxLength: DOCS }),
      ),
    );
    await fc.assert(
      fc.asyncProperty(cases, ([locked, docs]) => checkSchema(locked, docs)),
      { seed: SEED, numRuns: SCHEMAS, interruptAfterTimeLimit: 300_000 },
    );
    assert.ok(checked > 0, "some locked value was changed");
  });
});
