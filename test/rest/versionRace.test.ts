/**
 * Versions under concurrent writers (issue 36.1): conditional updates and deletes sent at once
 * to TWO TerrenoApp builds on one database (two instances, as two servers would be).
 *
 * Which database and pooling this proves: the suite's database, FerretDB 1.x unless
 * MONGODB_URI is set, over Mongoose's default pool (up to 100 connections). FerretDB does not
 * isolate concurrent updates across connections (50 racing compare-and-sets: 13 win), so these
 * counts are exact because each write first claims `(record, version)` by a unique insert
 * (src/ops/versionClaims.ts on src/ops/claimCounter.ts), atomic there across connections and
 * instances; on MongoDB the compare-and-set alone is exact, and the claim holds as well.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo } from "../helpers/models.js";
import { buildRestApp } from "../helpers/restApp.js";

useTestDatabase("rest_version_race");

const RACERS = 30;
/** Unconditional writers each wait their turn: fewer, so the slowest machine still serves all. */
const QUEUED = 12;

describe("versions under racing writers on two instances", () => {
  const first = buildRestApp();
  const second = buildRestApp();
  let alice: TestUser;
  const on = (i: number): Express => (i % 2 === 0 ? first : second);

  before(async () => {
    alice = await signUp(first, "alice");
  });

  const createTodo = async (title: string): Promise<string> =>
    (await request(first).post("/todos").set(bearer(alice)).send({ title }).expect(201)).body.data
      .id;

  test(`${RACERS} updates conditional on version 0: exactly one applies, the rest are 412`, async () => {
    const id = await createTodo("race");
    const statuses = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        request(on(i))
          .patch(`/todos/${id}`)
          .set(bearer(alice))
          .set("If-Match", '"0"')
          .send({ title: `writer ${i}` })
          .then((res) => ({ status: res.status, title: res.body.data?.title as string })),
      ),
    );
    const won = statuses.filter((s) => s.status === 200);
    assert.equal(won.length, 1, JSON.stringify(statuses.map((s) => s.status)));
    assert.ok(statuses.every((s) => s.status === 200 || s.status === 412));
    const stored = await Todo.findById(id).lean<{ title: string; __v: number }>();
    assert.equal(stored?.title, won[0]?.title, "the one that answered 200 is the one stored");
    assert.equal(stored?.__v, 1);
  });

  test(`${QUEUED} unconditional updates all apply, each changing the version once`, async () => {
    const id = await createTodo("counted");
    const results = await Promise.all(
      Array.from({ length: QUEUED }, (_, i) =>
        request(on(i))
          .patch(`/todos/${id}`)
          .set(bearer(alice))
          .send({ title: `writer ${i}` })
          .then((res) => ({ status: res.status, version: res.body.data?.version as number })),
      ),
    );
    assert.ok(
      results.every((r) => r.status === 200),
      JSON.stringify(results.map((r) => r.status)),
    );
    // No two writes answered the same version: none was lost, none wrote over another unseen.
    const versions = results.map((r) => r.version).sort((a, b) => a - b);
    assert.deepEqual(
      versions,
      Array.from({ length: QUEUED }, (_, i) => i + 1),
    );
    assert.equal((await Todo.findById(id).lean<{ __v: number }>())?.__v, QUEUED);
  });

  test(`${RACERS} deletes conditional on version 0: exactly one deletes`, async () => {
    const id = await createTodo("deleted once");
    const statuses = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        request(on(i))
          .delete(`/todos/${id}`)
          .set(bearer(alice))
          .set("If-Match", '"0"')
          .then((res) => res.status),
      ),
    );
    assert.equal(statuses.filter((s) => s === 204).length, 1, JSON.stringify(statuses));
    assert.equal((await Todo.findById(id).lean<{ __v: number }>())?.__v, 1);
    // The others found it changed (412) or already gone (404: soft-deleted records are not read).
    assert.ok(statuses.every((s) => s === 204 || s === 412 || s === 404));
  });
});
