// Issue #22 item 7: a property test over generated Mongoose schemas. fast-check generates a
// schema (schemaSpec.ts), which becomes a real model on the test FerretDB, routed by
// modelRouter in a built TerrenoApp, with REST, MCP and AI tools. For documents generated
// for it (values.ts), on each surface:
//   a. create → read → update(the read's output) → read is the identity (and the create
//      stored what was sent);
//   b. a merge patch gives what the reference implementation of RFC 7396 (the
//      `json-merge-patch` package) gives, as a read shows it;
//   c. what the advertised input schema accepts (ajv), the server accepts; what it refuses,
//      the server refuses with a 4xx (MCP: an `isError` result), never a 500.
// Seeded and bounded: PROPERTY_SEED, PROPERTY_SCHEMAS and PROPERTY_DOCS override the defaults.
// Shrunk failures are kept in regressions.ts and run first, every time.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import fc from "fast-check";
import mergePatch from "json-merge-patch";
import mongoose, { Schema } from "mongoose";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { toUser } from "../../src/auth/userPlugin.js";
import type { User as Caller } from "../../src/core/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import type { JsonSchema } from "../../src/schema/types.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { listen } from "../helpers/mcpClients.js";
import { User } from "../helpers/models.js";
import { SIGNED_IN } from "../helpers/permissions.js";
import { JWT_SECRET } from "../helpers/restApp.js";
import { sameData } from "../roundtrip/sameData.js";
import { REGRESSIONS } from "./regressions.js";
import { type SchemaSpec, schemaSpecArb, TARGET_MODEL, toMongooseSchema } from "./schemaSpec.js";
import { aiSurface, type GenSurface, mcpSurface, type Outcome, restSurface } from "./surfaces.js";
import {
  applyEdit,
  asRead,
  bodyArb,
  type DocCase,
  editArb,
  freshUnique,
  type JsonObject,
  maskAny,
  patchArb,
  refsAsIds,
  resolvePatch,
  type ValueOptions,
} from "./values.js";

useTestDatabase("property_schemas");

const SEED = Number(process.env.PROPERTY_SEED ?? 22_07_2026);
const SCHEMAS = Number(process.env.PROPERTY_SCHEMAS ?? 10);
const DOCS = Number(process.env.PROPERTY_DOCS ?? 2);

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
// Lengths as the tool descriptions state them: UTF-16 units, as the model's `maxlength` counts
// ("Lengths count UTF-16 units"), not JSON Schema's code points.
const ajv = addFormats(new Ajv({ strict: false, allErrors: true, unicode: false }));
const validators = new WeakMap<JsonSchema, ValidateFunction>();
function accepts(schema: JsonSchema, input: unknown): boolean {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate(input);
}

// `version` (issue #36) is the record's, like its id and timestamps: not a field written.
const META = ["id", "createdAt", "updatedAt", "version"];
const fieldsOnly = (doc: JsonObject): JsonObject =>
  Object.fromEntries(Object.entries(doc).filter(([key]) => !META.includes(key)));
const json = (value: unknown) => JSON.stringify(value);

function expectOk(outcome: Outcome, what: string): JsonObject {
  assert.ok(outcome.ok, `${what} was refused: ${outcome.raw.slice(0, 800)}`);
  return outcome.data;
}

/** (c): the server agrees with the advertised schema, and refusals are the caller's (4xx). */
const tally = { accepted: 0, refused: 0 };
function expectAgrees(outcome: Outcome, accepted: boolean, what: string, input: unknown): void {
  tally[accepted ? "accepted" : "refused"] += 1;
  const shown = `${what} ${json(input)} → ${outcome.raw.slice(0, 600)}`;
  if (accepted) {
    assert.ok(outcome.ok, `the schema accepts it, the server refused: ${shown}`);
    return;
  }
  assert.ok(!outcome.ok, `the schema refuses it, the server accepted: ${shown}`);
  assert.ok(outcome.status >= 400 && outcome.status < 500, `not a 4xx: ${shown}`);
  assert.ok(!outcome.protocolError, `a protocol error, not an isError result: ${shown}`);
}

async function checkDoc(spec: SchemaSpec, surface: GenSurface, doc: DocCase): Promise<void> {
  const at = (step: string) => `${surface.name}: ${step}`;
  const body = freshUnique(spec, doc.body);
  assert.ok(
    accepts(surface.createSchema, body),
    at(`the create schema refuses a valid body ${json(body)}`),
  );

  // a. create → read → update(read) → read.
  const created = expectOk(await surface.create(body), at("create"));
  const id = String(created.id);
  const read = expectOk(await surface.read(id), at("read"));
  const stored = asRead(spec.fields, body);
  const readIds = refsAsIds(spec.fields, fieldsOnly(read));
  assert.deepEqual(maskAny(stored, readIds), stored, at("the read shows what was created"));
  const same = sameData(read, surface.updateSchema) as JsonObject;
  const sameInput = surface.updateInput(id, same);
  assert.ok(
    accepts(surface.updateSchema, sameInput),
    at(`the update schema refuses a read ${json(sameInput)}`),
  );
  expectOk(await surface.update(id, same), at("update with the read's output"));
  const reread = expectOk(await surface.read(id), at("read after the update"));
  assert.deepEqual(reread, read, at("update(read) changed the document"));

  // b. a merge patch, against the RFC 7396 reference.
  const patch = resolvePatch(spec.fields, doc.patch, read);
  assert.ok(
    accepts(surface.updateSchema, surface.updateInput(id, patch)),
    at(`the update schema refuses a valid patch ${json(patch)}`),
  );
  expectOk(await surface.update(id, patch), at(`merge patch ${json(patch)}`));
  const patchedRead = expectOk(await surface.read(id), at("read after the patch"));
  const patched = refsAsIds(spec.fields, fieldsOnly(patchedRead));
  const expected = asRead(spec.fields, mergePatch.apply(structuredClone(readIds), patch));
  assert.deepEqual(
    maskAny(expected, patched),
    expected,
    at(`merge patch ${json(patch)} on ${json(fieldsOnly(read))}`),
  );

  // c. the advertised schemas and the server agree, on create and on update.
  const createInput = freshUnique(spec, applyEdit(spec.fields, doc.body, doc.createEdit));
  expectAgrees(
    await surface.create(createInput),
    accepts(surface.createSchema, createInput),
    at("create"),
    createInput,
  );
  const updateBody = freshUnique(spec, applyEdit(spec.fields, doc.body, doc.updateEdit));
  expectAgrees(
    await surface.update(id, updateBody),
    accepts(surface.updateSchema, surface.updateInput(id, updateBody)),
    at("update"),
    updateBody,
  );
}

describe("property: generated Mongoose schemas on REST, MCP and AI tools", () => {
  let user: TestUser;
  let caller: Caller;
  let options: ValueOptions;
  let counter = 0;

  before(async () => {
    const Target =
      mongoose.models[TARGET_MODEL] ??
      mongoose.model(TARGET_MODEL, new Schema({ name: String }, { timestamps: true }));
    const targets = await Target.create([{ name: "t1" }, { name: "t2" }, { name: "t3" }]);
    const bootstrap = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: JWT_SECRET } },
    }).build();
    user = await signUp(bootstrap, "property");
    const doc = await User.findById(user.userId);
    assert.ok(doc);
    caller = toUser(doc);
    options = {
      refIds: targets.map((target: { _id: unknown }) => String(target._id)),
      nullOnDefault: true,
      refObjects: true,
    };
    process.stdout.write(
      `# property seed ${SEED} (PROPERTY_SEED), ${SCHEMAS} schemas (PROPERTY_SCHEMAS) × ${DOCS} documents (PROPERTY_DOCS)\n`,
    );
  });
  after(() => {
    process.stdout.write(
      `# edits the schema accepted: ${tally.accepted}, refused: ${tally.refused}\n`,
    );
    for (const name of mongoose.modelNames())
      if (name.startsWith("PropGen")) mongoose.deleteModel(name);
  });

  /** One schema: a model, an app exposing it, its three surfaces, and every document's checks. */
  async function checkSchema(spec: SchemaSpec, docs: DocCase[]): Promise<void> {
    counter += 1;
    const modelName = `PropGen${counter}`;
    const prefix = `gen${counter}`;
    const path = `/gen${counter}`;
    const Model = mongoose.model(modelName, toMongooseSchema(spec));
    await Model.init();
    const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } }).register(
      path,
      modelRouter(Model, {
        permissions: SIGNED_IN,
        populatePaths: (spec.populate ?? []).map((populated) => ({ path: populated })),
        mcp: { toolPrefix: prefix, methods: ["create", "read", "update"] },
      }),
    );
    const express = app.build();
    const server = await listen(express);
    const surfaces = [
      restSurface(app, express, modelName, path, user.token),
      await mcpSurface(server.url, user.token, prefix),
      await aiSurface(app, caller, prefix),
    ];
    try {
      for (const doc of docs) for (const surface of surfaces) await checkDoc(spec, surface, doc);
    } finally {
      for (const surface of surfaces) await surface.close();
      await server.close();
      mongoose.deleteModel(modelName);
    }
  }

  const docCaseArb = (spec: SchemaSpec): fc.Arbitrary<DocCase> =>
    fc.record({
      body: bodyArb(spec, options),
      patch: patchArb(spec, options),
      createEdit: editArb,
      updateEdit: editArb,
    });

  test("create/read/update round trips, merge patches and input schemas agree with the server", async () => {
    const cases = schemaSpecArb({ defaults: true, populate: true }).chain((spec) =>
      fc.tuple(fc.constant(spec), fc.array(docCaseArb(spec), { minLength: 1, maxLength: DOCS })),
    );
    await fc.assert(
      fc.asyncProperty(cases, ([spec, docs]) => checkSchema(spec, docs)),
      {
        seed: SEED,
        numRuns: SCHEMAS,
        examples: REGRESSIONS.map((regression) => [[regression.spec, regression.docs(options)]]),
        // A failure shrinks by rebuilding apps: past this, the smallest case so far is reported.
        interruptAfterTimeLimit: 300_000,
      },
    );
  });
});
