/**
 * Hidden fields: bare names hide everywhere, dotted paths hide one location, select:false
 * always hides, and stripHidden removes them from serialized values at any depth.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeModel } from "../../src/schema/describeModel.js";
import { createHiddenFields } from "../../src/schema/hiddenFields.js";
import { buildTodoModel, freshMongoose } from "./fixtures.js";

const todo = describeModel(buildTodoModel().Todo);

describe("isHidden", () => {
  const hidden = createHiddenFields(["internalNote", "password", "address.zip", "items.qty"], todo);

  it("hides bare names at every depth", () => {
    assert.equal(hidden.isHidden("internalNote"), true);
    assert.equal(hidden.isHidden("ownerId.password"), true);
    assert.equal(hidden.isHidden("items.password"), true);
    assert.equal(hidden.isHiddenName("password"), true);
    assert.equal(hidden.isHiddenName("title"), false);
  });

  it("hides dotted paths at exactly one location, and everything below it", () => {
    assert.equal(hidden.isHidden("address.zip"), true);
    assert.equal(hidden.isHidden("zip"), false);
    assert.equal(hidden.isHidden("other.zip"), false);
    assert.equal(hidden.isHidden("items.qty"), true);
    assert.equal(hidden.isHidden("items.name"), false);
    const whole = createHiddenFields(["address"], todo);
    assert.equal(whole.isHidden("address.city"), true);
  });

  it("always hides select:false paths, without hiding the name elsewhere", () => {
    const none = createHiddenFields([], todo);
    assert.equal(none.isHidden("secret"), true);
    assert.equal(none.isHidden("ownerId.secret"), false);
    assert.equal(none.isHidden("title"), false);
  });

  it("hides select:false paths inside subdocuments", () => {
    const m = freshMongoose();
    const Line = new m.Schema({ sku: String, cost: { type: Number, select: false } });
    const d = describeModel(m.model("Order", new m.Schema({ lines: [Line], main: Line })));
    const hidden = createHiddenFields([], d);
    assert.equal(hidden.isHidden("lines.cost"), true);
    assert.equal(hidden.isHidden("main.cost"), true);
    assert.equal(hidden.isHidden("lines.sku"), false);
  });
});

describe("stripHidden", () => {
  const hidden = createHiddenFields(["internalNote", "password", "address.zip", "items.qty"], todo);
  const doc = {
    id: "a",
    title: "t",
    internalNote: "private",
    secret: "s3cret",
    address: { city: "Paris", zip: "75001" },
    items: [
      { name: "x", qty: 1, password: "p" },
      { name: "y", qty: 2 },
    ],
    ownerId: {
      id: "u",
      name: "Ann",
      password: "hash",
      address: { zip: "kept: not the Todo's address" },
    },
    tags: ["a", "b"],
    meta: { password: 1, other: 2 },
  };

  it("removes bare names at any depth (populated refs included) and dotted paths at one place", () => {
    assert.deepEqual(hidden.stripHidden(doc), {
      id: "a",
      title: "t",
      address: { city: "Paris" },
      items: [{ name: "x" }, { name: "y" }],
      ownerId: { id: "u", name: "Ann", address: { zip: "kept: not the Todo's address" } },
      tags: ["a", "b"],
      meta: { other: 2 },
    });
  });

  it("does not modify its input", () => {
    const before = structuredClone(doc);
    hidden.stripHidden(doc);
    assert.deepEqual(doc, before);
  });

  it("strips every document of a list", () => {
    assert.deepEqual(
      hidden.stripHidden([
        { internalNote: 1, title: "a" },
        { title: "b", secret: 2 },
      ]),
      [{ title: "a" }, { title: "b" }],
    );
  });

  it("honours basePath when stripping a value that sits below the root", () => {
    assert.deepEqual(hidden.stripHidden({ city: "Paris", zip: "1" }, "address"), { city: "Paris" });
    assert.deepEqual(hidden.stripHidden([{ name: "x", qty: 3 }], "items"), [{ name: "x" }]);
    assert.deepEqual(hidden.stripHidden({ city: "Paris", zip: "1" }, "elsewhere"), {
      city: "Paris",
      zip: "1",
    });
  });

  it("passes non-plain objects through and keeps __proto__ keys as data", () => {
    const when = new Date(0);
    const parsed: unknown = JSON.parse('{"__proto__": {"polluted": true}, "when": 1}');
    const stripped = hidden.stripHidden({ when, nested: parsed });
    assert.ok(typeof stripped === "object" && stripped !== null);
    assert.equal(Reflect.get(stripped, "when"), when);
    const nested: unknown = Reflect.get(stripped, "nested");
    assert.ok(typeof nested === "object" && nested !== null);
    assert.equal(Object.getPrototypeOf(nested), Object.prototype);
    assert.deepEqual(Object.keys(nested), ["__proto__", "when"]);
    assert.equal(Reflect.get({}, "polluted"), undefined);
  });

  it("returns scalars unchanged", () => {
    assert.equal(hidden.stripHidden("x"), "x");
    assert.equal(hidden.stripHidden(null), null);
  });
});
