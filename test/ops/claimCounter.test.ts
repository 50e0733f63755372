/**
 * The claim primitive (src/ops/claimCounter.ts) under races: concurrent claimers on TWO pooled
 * connections (two instances' worth), on the suite's database (FerretDB 1.x unless MONGODB_URI
 * is set), where an `$inc` over the same pools loses counts. Claims rest on `_id` uniqueness,
 * which FerretDB keeps across connections, so these counts are exact there and on MongoDB.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import mongoose from "mongoose";
import { ClaimStore } from "../../src/ops/claimCounter.js";
import { openConnection, useConnection, useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase("ops_claim_counter");

describe("claims across two pooled connections", () => {
  const other = useConnection(database, 20);

  const stores = () => [ClaimStore.on(mongoose.connection), ClaimStore.on(other())];
  const later = () => new Date(Date.now() + 60_000);

  test("50 concurrent claims of a 10-slot series: exactly slots 1…10 are handed out, once each", async () => {
    const [a, b] = stores();
    const got = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? a : b).claimNext("race", "round0", 10, later(), []),
      ),
    );
    const claimed = got.filter((n): n is number => n !== undefined).sort((x, y) => x - y);
    assert.deepEqual(claimed, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal((await a.claims("race")).length, 10);
  });

  test("one id claimed by 20 racers at once: exactly one wins", async () => {
    const [a, b] = stores();
    const wins = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).claimAt("once", "key", 1, later(), { by: i }),
      ),
    );
    assert.equal(wins.filter(Boolean).length, 1);
  });

  test("expired claims of groups nobody reads again are swept when any group is read", async () => {
    // A connection of its own: its store has not swept yet in this process.
    const fresh = await openConnection(database);
    try {
      const store = ClaimStore.on(fresh);
      const raw = fresh.collection("terreno_claims");
      assert.equal(await store.claimAt("forgotten", "s", 1, new Date(Date.now() - 1000)), true);
      assert.equal(await store.claimAt("forgotten", "s", 2, later()), true);
      await store.claims("another-group");
      let left = -1;
      for (let i = 0; i < 50 && left !== 1; i++) {
        left = await raw.countDocuments({ group: "forgotten" });
        if (left !== 1) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(left, 1, "the live claim stays, the expired one is gone");
    } finally {
      await fresh.close();
    }
  });

  test("an expired claim is ignored and its slot claimed again; release and clear refund", async () => {
    const [a] = stores();
    assert.equal(await a.claimAt("expiry", "s", 1, new Date(Date.now() - 1000)), true);
    assert.deepEqual(await a.claims("expiry"), []);
    assert.equal(await a.claimNext("expiry", "s", 2, later(), []), 1);
    assert.equal(await a.claimNext("expiry", "s", 2, later(), [1]), 2);
    assert.equal(await a.claimNext("expiry", "s", 2, later(), []), undefined);
    await a.release("expiry", "s", 1);
    assert.equal(await a.claimNext("expiry", "s", 2, later(), []), 1);
    await a.clear("expiry");
    assert.deepEqual(await a.claims("expiry"), []);
  });

  test("settle and an owner's release touch only the claim that owner still holds", async () => {
    // An idempotency key's claimer writes its answer, or frees the key, on its own claim only:
    // once its claim expired and another claimer took the slot, the successor's claim stays.
    const [a, b] = stores();
    assert.equal(
      await a.claimAt("owned", "k", 1, new Date(Date.now() - 1000), { owner: "A" }),
      true,
    );
    assert.deepEqual(await b.claims("owned"), [], "expired, and deleted by the read");
    assert.equal(await b.claimAt("owned", "k", 1, later(), { owner: "B" }), true);
    await a.settle("owned", "k", 1, "A", later(), { owner: "A", answer: "late" });
    await a.release("owned", "k", 1, "A");
    assert.deepEqual(
      (await a.claims("owned")).map((claim) => claim.data),
      [{ owner: "B" }],
    );
    await b.settle("owned", "k", 1, "B", later(), { owner: "B", answer: "kept" });
    assert.deepEqual(
      (await a.claims("owned")).map((claim) => claim.data.answer),
      ["kept"],
    );
    await b.release("owned", "k", 1, "B");
    assert.deepEqual(await a.claims("owned"), []);
  });

  test("names with | or % are escaped in the id, so ids never collide", async () => {
    // Names may come from outside (an address as a proxy header gave it): refusing them made
    // the login lockout fail open, so they are escaped instead.
    const [a] = stores();
    assert.equal(await a.claimAt("x|y", "z", 1, later()), true);
    assert.equal(await a.claimAt("x", "y|z", 1, later()), true, "a different id");
    assert.equal(await a.claimAt("x%7Cy", "z", 1, later()), true, "escaped % too");
    assert.equal(await a.claimAt("x|y", "z", 1, later()), false, "the same claim again");
    assert.deepEqual(
      (await a.claims("x|y")).map(({ series, n }) => [series, n]),
      [["z", 1]],
    );
    await a.release("x|y", "z", 1);
    assert.deepEqual(await a.claims("x|y"), []);
  });
});
