import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import request from "supertest";
import { bearer, signedUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { buildRestApp } from "../helpers/restApp.js";

useTestDatabase("rest_filters");

const titles = (res: request.Response) =>
  res.body.data.map((t: { title: string }) => t.title).sort();

// Equality, $gt/$gte/$in/$regex, unknown and hidden fields, $where, paging and sort are
// asserted once for every surface in test/contract; this file keeps REST query-string parsing.
describe("REST list filters", () => {
  const app = buildRestApp();
  const [alice] = signedUp(app, "alice");

  before(async () => {
    const todos = [
      {
        title: "alpha",
        completed: true,
        priority: 1,
        dueDate: "2026-01-01T00:00:00Z",
        tags: ["a", "b"],
      },
      {
        title: "beta",
        completed: false,
        priority: 3,
        dueDate: "2026-06-01T00:00:00Z",
        tags: ["b"],
      },
      { title: "gamma", completed: false, priority: 5, tags: [] },
    ];
    for (const todo of todos)
      await request(app).post("/todos").set(bearer(alice)).send(todo).expect(201);
  });

  test("query-string values are coerced by schema type: dates", async () => {
    const dated = await request(app)
      .get("/todos?dueDate[$gte]=2026-03-01T00:00:00Z")
      .set(bearer(alice));
    assert.deepEqual(titles(dated), ["beta"]);
  });

  test("REST-only list syntax and the operators the contract does not cover: $in as a comma list, $nin, $ne, $exists", async () => {
    const q = (qs: string) => request(app).get(`/todos?${qs}`).set(bearer(alice));
    assert.deepEqual(titles(await q("title[$in]=alpha,gamma")), ["alpha", "gamma"]);
    assert.deepEqual(titles(await q("title[$nin][]=alpha&title[$nin][]=gamma")), ["beta"]);
    assert.deepEqual(titles(await q("completed[$ne]=true")), ["beta", "gamma"]);
    assert.deepEqual(titles(await q("dueDate[$exists]=false")), ["gamma"]);
  });

  test("REST-only $or/$and syntax: a comma $in two levels down; the `[]` push form is refused", async () => {
    // The branch semantics are in test/contract/cases/combinators.ts; these are query-string forms.
    const q = (qs: string) => request(app).get(`/todos?${qs}`).set(bearer(alice));
    const comma = await q("$and[0][$or][0][title][$in]=alpha,beta&$and[1][completed]=false");
    assert.deepEqual(titles(comma), ["beta"]);
    // qs's push form merges both branches into one field list: refused, naming the index form.
    const pushed = await q("$or[][title]=alpha&$or[][title]=beta");
    assert.equal(pushed.status, 400, pushed.text);
    assert.equal(pushed.body.code, "validation_failed");
    assert.ok(pushed.body.fields["$or.0.title"], JSON.stringify(pushed.body.fields));
  });

  test("a field outside queryFields is a 400 naming it", async () => {
    const res = await request(app).get("/todos?createdAt=2026-01-01").set(bearer(alice));
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "validation_failed");
    assert.equal(res.body.fields.createdAt, "is not a filterable field");
    assert.match(res.body.detail, /Filterable fields: title/);
  });

  test("$expr and $function are refused wherever they appear, by name", async () => {
    for (const operator of ["$expr", "$function"]) {
      const top = await request(app).get(`/todos?${operator}=1`).set(bearer(alice));
      assert.equal(top.status, 400, operator);
      // Named once, in fields: the detail does not repeat it (issue #22).
      assert.deepEqual(top.body.fields, { [operator]: `operator ${operator} is not allowed` });
      const nested = await request(app)
        .get(`/todos?title[${operator}]=sleep(1000)`)
        .set(bearer(alice));
      assert.equal(nested.status, 400, operator);
      assert.deepEqual(nested.body.fields, {
        [`title.${operator}`]: `operator ${operator} is not allowed`,
      });
    }
  });

  test("bad values are 400s naming the field", async () => {
    const cases: Array<[string, string]> = [
      ["priority=high", "priority"],
      ["completed=maybe", "completed"],
      ["dueDate=notadate", "dueDate"],
      ["ownerId=123", "ownerId"],
      [`title[$regex]=${"a".repeat(201)}`, "title"],
      ["title[$regex]=(unclosed", "title"],
    ];
    for (const [qs, field] of cases) {
      const res = await request(app).get(`/todos?${qs}`).set(bearer(alice));
      assert.equal(res.status, 400, qs);
      assert.ok(res.body.fields[field], `${qs} names ${field}`);
    }
  });

  test("page and limit from the query string must be positive whole numbers", async () => {
    for (const qs of ["page=-1", "page=1.5", "limit=abc"]) {
      const res = await request(app).get(`/todos?${qs}`).set(bearer(alice));
      assert.equal(res.status, 400, qs);
      assert.equal(res.body.code, "validation_failed");
    }
  });
});
