/**
 * Undo (#36) of a workspace-scoped record's delete: the restore puts the record back into the
 * workspace it was deleted from, so it runs only for a caller working in that workspace. A
 * member removed since, or one working in another workspace, gets 404 and nothing is written.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import mongoose, { Schema } from "mongoose";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { WorkspaceRole } from "../../src/index.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { User } from "../helpers/models.js";
import { JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("workspace-changes-undo");

const Card = mongoose.model(
  "UndoCard",
  new Schema({ title: { type: String, required: true }, workspaceId: Schema.Types.ObjectId }),
);
const member = [WorkspaceRole("member")];
const app = new TerrenoApp({
  userModel: User,
  auth: { jwt: { secret: JWT_SECRET } },
  workspaces: true,
  changes: true,
}).register(
  modelRouter(Card, {
    workspace: "workspaceId",
    permissions: { list: member, read: member, create: member, update: member, delete: member },
  }),
);
const server = app.build();

async function workspace(owner: TestUser, name: string): Promise<string> {
  const res = await request(server).post("/workspaces").set(bearer(owner)).send({ name });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data.id;
}

describe("undoing a scoped delete", () => {
  test("only from the record's own workspace, by a caller still in it", async () => {
    const ada = await signUp(server, "ada");
    const bob = await signUp(server, "bob");
    const shop = await workspace(ada, "Shop");
    const other = await workspace(ada, "Other");
    const invited = await request(server)
      .post(`/workspaces/${shop}/invitations`)
      .set(bearer(ada))
      .send({ role: "member" });
    await request(server)
      .post(`/invitations/${invited.body.data.token}/accept`)
      .set(bearer(bob))
      .expect(200);

    const inShop = (user: TestUser) => ({ ...bearer(user), "X-Workspace-Id": shop });
    const created = await request(server).post("/undo-cards").set(inShop(bob)).send({ title: "x" });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.id;
    await request(server).delete(`/undo-cards/${id}`).set(inShop(bob)).expect(204);
    const changes = await request(server).get(`/changes?record=${id}`).set(bearer(bob));
    const deletion = changes.body.data.find((c: { action: string }) => c.action === "delete");
    assert.ok(deletion, JSON.stringify(changes.body));

    // Ada, in two workspaces, undoes her own change only: Bob's is not hers (404 by the log).
    // Bob working in no workspace of the record's: his only workspace is the shop, so he is
    // removed from it first, and then his undo finds nothing.
    const removal = await request(server)
      .delete(`/workspaces/${shop}/members/${bob.userId}`)
      .set(bearer(ada));
    assert.equal(removal.status, 204, JSON.stringify(removal.body));
    const gone = await request(server).get("/undo-cards").set(inShop(bob));
    assert.equal(gone.status, 404, "a removed member reaches nothing of the shop");
    const removed = await request(server).post(`/changes/${deletion.id}/undo`).set(inShop(bob));
    assert.equal(removed.status, 404, JSON.stringify(removed.body));
    assert.equal(await Card.countDocuments({ _id: id }), 0, "nothing was restored");

    // Back in, but working in another workspace: still 404, nothing restored.
    const again = await request(server)
      .post(`/workspaces/${other}/invitations`)
      .set(bearer(ada))
      .send({ role: "member" });
    await request(server)
      .post(`/invitations/${again.body.data.token}/accept`)
      .set(bearer(bob))
      .expect(200);
    const elsewhere = await request(server)
      .post(`/changes/${deletion.id}/undo`)
      .set({ ...bearer(bob), "X-Workspace-Id": other });
    assert.equal(elsewhere.status, 404, JSON.stringify(elsewhere.body));
    assert.equal(await Card.countDocuments({ _id: id }), 0, "nothing was restored");

    // In the record's workspace again: the undo restores it there.
    const rejoin = await request(server)
      .post(`/workspaces/${shop}/invitations`)
      .set(bearer(ada))
      .send({ role: "member" });
    await request(server)
      .post(`/invitations/${rejoin.body.data.token}/accept`)
      .set(bearer(bob))
      .expect(200);
    const undone = await request(server).post(`/changes/${deletion.id}/undo`).set(inShop(bob));
    assert.equal(undone.status, 200, JSON.stringify(undone.body));
    const back = await request(server).get(`/undo-cards/${id}`).set(inShop(bob));
    assert.equal(back.status, 200);
    assert.equal(back.body.data.workspaceId, shop);
  });
});
