/**
 * Issue #35, item 3: fields the caller may not set, and fields a role may not see. A read-only
 * field holds inside array items (matched by id, or by position when items have none) and map
 * values; `immutable` fields are create-only; a field a caller may not read is, to them, a field
 * the model does not have. Refused writes write nothing; a read sent back unchanged still works.
 */
import assert from "node:assert/strict";
import type { Driver } from "../drivers/types.js";
import { assertNotReceived, doc, expectError, expectOk, pluck } from "../expect.js";
import { type Failure, isFailure, type Outcome } from "../outcome.js";
import { type Actor, seedInvoice, storedInvoice } from "../world.js";
import type { ContractCase } from "./types.js";

const group = "field rules";

type Line = Record<string, unknown>;

/** Refused with validation_failed naming `path`, and the stored invoice is as it was. */
async function refused(
  driver: Driver,
  id: string,
  body: Record<string, unknown>,
  path: string,
): Promise<void> {
  const before = await storedInvoice(id);
  const outcome = await driver.update("alice", "invoices", id, body);
  const failure = expectError(outcome, { code: "validation_failed" });
  assert.ok(failure.fields && path in failure.fields, `should name ${path}: ${failure.raw}`);
  assert.deepEqual(await storedInvoice(id), before, "nothing was written");
}

async function readLines(driver: Driver, id: string, key = "lines"): Promise<Line[]> {
  return doc(expectOk(await driver.read("alice", "invoices", id), "read"))[key] as Line[];
}

/** The failure with `name` written as `NAME` everywhere, to compare two refusals' texts. */
function masked(outcome: Outcome, name: string): unknown {
  assert.ok(isFailure(outcome), `expected a refusal, got ${outcome.raw.slice(0, 400)}`);
  const { raw: _raw, ...failure } = outcome as Failure;
  return JSON.parse(JSON.stringify(failure).split(name).join("NAME"));
}

/** Asking about a field the caller may not read answers exactly as a field that does not exist. */
async function sameAsUnknown(
  driver: Driver,
  as: Actor,
  ask: (field: string) => Promise<Outcome>,
): Promise<void> {
  const hidden = await ask("costCents");
  const unknown = await ask("nosuchfield");
  assert.deepEqual(masked(hidden, "costCents"), masked(unknown, "nosuchfield"), driver.name + as);
}

export const fieldRuleCases: ContractCase[] = [
  {
    group,
    name: "a read-only field inside array items: a changed price is a 400 naming it, nothing written; the read sent back works",
    smoke: true,
    async run({ driver, world }) {
      const id = await seedInvoice(world.accounts.alice, {
        lines: [
          { sku: "a", qty: 1, unitPriceCents: 500 },
          { sku: "b", qty: 2, unitPriceCents: 300 },
        ],
      });
      const lines = await readLines(driver, id);
      const cheaper = lines.map((line, i) => (i === 1 ? { ...line, unitPriceCents: 1 } : line));
      await refused(driver, id, { lines: cheaper }, "lines.1.unitPriceCents");

      // The read sent back, one quantity changed: accepted, the prices stay.
      const more = lines.map((line, i) => (i === 0 ? { ...line, qty: 5 } : line));
      expectOk(await driver.update("alice", "invoices", id, { lines: more }), "update");
      let stored = (await storedInvoice(id)).lines as Line[];
      assert.deepEqual(
        stored.map((line) => [line.sku, line.qty, line.unitPriceCents]),
        [
          ["a", 5, 500],
          ["b", 2, 300],
        ],
      );

      // A stored item that leaves the price out keeps it; a new item may not set one.
      const bare = lines.map(({ unitPriceCents: _price, ...line }) => line);
      await refused(
        driver,
        id,
        { lines: [...bare, { sku: "c", unitPriceCents: 999 }] },
        "lines.2.unitPriceCents",
      );
      expectOk(
        await driver.update("alice", "invoices", id, { lines: [...bare, { sku: "c" }] }),
        "update",
      );
      stored = (await storedInvoice(id)).lines as Line[];
      assert.deepEqual(
        stored.map((line) => [line.sku, line.unitPriceCents]),
        [
          ["a", 500],
          ["b", 300],
          ["c", 0],
        ],
        "stored items keep their price; the new one takes the default",
      );
    },
  },
  {
    group,
    name: "a read-only field inside items without ids (matched by position) and inside map values",
    async run({ driver, world }) {
      const id = await seedInvoice(world.accounts.alice, {
        notes: [{ text: "first", stamp: "s1" }],
        rates: { eu: { label: "EU", cents: 20 } },
      });
      const read = doc(expectOk(await driver.read("alice", "invoices", id), "read"));
      const notes = read.notes as Line[];
      await refused(driver, id, { notes: [{ ...notes[0], stamp: "forged" }] }, "notes.0.stamp");
      await refused(driver, id, { rates: { eu: { label: "EU", cents: 1 } } }, "rates.eu.cents");
      await refused(driver, id, { rates: { us: { label: "US", cents: 5 } } }, "rates.us.cents");
      expectOk(
        await driver.update("alice", "invoices", id, {
          notes: [{ ...notes[0], text: "edited" }],
          rates: { eu: { label: "Europe" }, us: { label: "US" } },
        }),
        "update",
      );
      const stored = await storedInvoice(id);
      assert.deepEqual(stored.notes, [{ text: "edited", stamp: "s1" }]);
      assert.deepEqual(stored.rates, { eu: { label: "Europe", cents: 20 }, us: { label: "US" } });
    },
  },
  {
    group,
    name: "immutable: set on create, a different value on update is a 400 naming it, the same value is accepted",
    smoke: true,
    async run({ driver, tag }) {
      const created = doc(
        expectOk(
          await driver.create("alice", "invoices", {
            title: `immutable ${tag}`,
            store: "north",
            lines: [{ sku: "a", addedIn: "web" }],
          }),
          "create",
        ),
      );
      const id = String(created.id);
      assert.equal((await storedInvoice(id)).store, "north");
      await refused(driver, id, { store: "south" }, "store");
      const lines = created.lines as Line[];
      await refused(driver, id, { lines: [{ ...lines[0], addedIn: "app" }] }, "lines.0.addedIn");
      // Unchanged, it goes back as read; a new item sets its own.
      const updated = doc(
        expectOk(
          await driver.update("alice", "invoices", id, {
            store: "north",
            title: `renamed ${tag}`,
            lines: [...lines, { sku: "b", addedIn: "app" }],
          }),
          "update",
        ),
      );
      assert.equal(updated.title, `renamed ${tag}`);
      const stored = await storedInvoice(id);
      assert.equal(stored.store, "north");
      assert.deepEqual(
        (stored.lines as Line[]).map((line) => [line.sku, line.addedIn]),
        [
          ["a", "web"],
          ["b", "app"],
        ],
      );
    },
  },
  {
    group,
    name: "a role-hidden field: absent from the results, a filter and a sort on it answered as for an unknown field",
    smoke: true,
    async run({ driver, world, tag }) {
      const title = `cost ${tag}`;
      const bobs = await seedInvoice(world.accounts.bob, { title, costCents: 987654 });
      await seedInvoice(world.accounts.alice, { title, costCents: 700 });
      await seedInvoice(world.accounts.alice, { title, costCents: 900 });

      // bob's own invoice, listed and read: no cost.
      const listed = expectOk(await driver.list("bob", "invoices", { filter: { title } }), "list");
      assert.deepEqual(pluck(listed, "costCents"), [undefined]);
      const read = expectOk(await driver.read("bob", "invoices", bobs), "read");
      assert.equal("costCents" in doc(read), false);
      for (const outcome of [listed, read]) assertNotReceived(outcome, "987654", "costCents");

      await sameAsUnknown(driver, "bob", (field) =>
        driver.list("bob", "invoices", { filter: { [field]: 987654 } }),
      );
      await sameAsUnknown(driver, "bob", (field) =>
        driver.list("bob", "invoices", { filter: { $or: [{ title }, { [field]: { $gt: 1 } }] } }),
      );
      await sameAsUnknown(driver, "bob", (field) =>
        driver.list("bob", "invoices", { filter: { title }, sort: `-${field}` }),
      );
      await sameAsUnknown(driver, "bob", (field) =>
        driver.update("bob", "invoices", bobs, { [field]: 1 }),
      );
      assert.equal((await storedInvoice(bobs)).costCents, 987654, "nothing was written");

      // alice may read it: she sees, filters and sorts by it.
      const hers = expectOk(
        await driver.list("alice", "invoices", {
          filter: { title, costCents: { $gt: 1 } },
          sort: "-costCents",
        }),
        "list",
      );
      assert.deepEqual(pluck(hers, "costCents"), [900, 700]);
    },
  },
];
