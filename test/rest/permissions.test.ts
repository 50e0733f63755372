import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import {
  IsAdmin,
  IsAny,
  IsAuthenticatedOrReadOnly,
  IsOwnerOrReadOnly,
} from "../../src/core/permissions.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signedUp, signUp } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Food, Todo, User } from "../helpers/models.js";
import { buildRestApp, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

useTestDatabase("rest_perms");

describe("REST permissions", () => {
  const app = buildRestApp();
  const [alice, bob] = signedUp(app, "alice", "bob");
  let aliceTodoId: string;

  before(async () => {
    const res = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "alice's secret plan" });
    aliceTodoId = res.body.data.id;
  });

  // Who may read, change or delete what (401, 403, 404 for other users' documents, 405) is
  // asserted once for every surface in test/contract; this file keeps REST-only behaviour
  // and the permission helpers.

  test("a 401 carries a Bearer challenge", async () => {
    const res = await request(app).get("/todos");
    assert.equal(res.status, 401);
    assert.match(String(res.headers["www-authenticate"]), /^Bearer/);
  });

  test("queryFilter returning null yields an empty result", async () => {
    const nullApp = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(modelRouter(Todo, todoOptions({ queryFilter: () => null })))
      .build();
    const res = await request(nullApp).get("/todos").set(bearer(alice));
    assert.deepEqual(res.body, { data: [], page: 1, limit: 10, total: 0, more: false });
  });

  test("admins pass IsOwner and IsAdmin", async () => {
    await User.updateOne({ _id: bob.userId }, { admin: true });
    const read = await request(app).get(`/todos/${aliceTodoId}`).set(bearer(bob));
    assert.equal(read.status, 200);
    await User.updateOne({ _id: bob.userId }, { admin: false });
  });

  test("permission helpers combine per method", async () => {
    const helperApp = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(
        "/foods",
        modelRouter(Food, {
          permissions: {
            list: [IsAny],
            read: [IsAuthenticatedOrReadOnly],
            create: [IsAuthenticatedOrReadOnly],
            update: [IsOwnerOrReadOnly],
            delete: [IsAdmin],
          },
          preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }),
        }),
      )
      .build();
    assert.equal((await request(helperApp).get("/foods")).status, 200, "IsAny lets anonymous list");
    assert.equal((await request(helperApp).post("/foods").send({ name: "x" })).status, 401);
    const created = await request(helperApp)
      .post("/foods")
      .set(bearer(alice))
      .send({ name: "pear" });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    assert.equal((await request(helperApp).get(`/foods/${id}`)).status, 200, "read-only is open");
    assert.equal(
      (await request(helperApp).patch(`/foods/${id}`).set(bearer(bob)).send({ calories: 1 }))
        .status,
      403,
    );
    assert.equal(
      (await request(helperApp).patch(`/foods/${id}`).set(bearer(alice)).send({ calories: 1 }))
        .status,
      200,
    );
    assert.equal(
      (await request(helperApp).delete(`/foods/${id}`).set(bearer(alice))).status,
      403,
      "IsAdmin",
    );
  });

  test("a disabled user's token is refused with 401", async () => {
    const carol = await signUp(app, "carol");
    await User.updateOne({ _id: carol.userId }, { disabled: true });
    const res = await request(app).get("/todos").set(bearer(carol));
    assert.equal(res.status, 401);
    assert.match(res.body.detail, /disabled/);
  });
});
