/**
 * The workspace management routes over real HTTP against FerretDB: the caller's workspaces,
 * roles, members, single-use invitations (also under concurrent accepts), the last owner (also
 * under concurrent demotions), removal ending access on the next request, audit, rate limits
 * and the OpenAPI document.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import mongoose from "mongoose";
import request from "supertest";
import { z } from "zod";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import type { AuditEvent } from "../../src/ops/audit.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { User } from "../helpers/models.js";
import { JWT_SECRET } from "../helpers/restApp.js";

useTestDatabase("workspace-admin");

const audit: AuditEvent[] = [];
const app = new TerrenoApp({
  userModel: User,
  auth: { jwt: { secret: JWT_SECRET } },
  workspaces: true,
  onAudit: (event) => {
    audit.push(event);
  },
});
// Where the caller is: a tool that needs the current workspace, as every scoped call does.
app.tool("where_am_i", {
  description: "The current workspace.",
  annotations: { readOnlyHint: true },
  output: z.object({ id: z.string(), name: z.string(), role: z.string() }),
  handler: async (ctx) => {
    if (!ctx.workspace) throw new Error("no workspaces");
    return ctx.workspace.current();
  },
});
const server = app.build();

async function createWorkspace(owner: TestUser, name: string): Promise<string> {
  const res = await request(server).post("/workspaces").set(bearer(owner)).send({ name });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data.id;
}

async function invite(owner: TestUser, workspaceId: string, role: string): Promise<string> {
  const res = await request(server)
    .post(`/workspaces/${workspaceId}/invitations`)
    .set(bearer(owner))
    .send({ role });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.match(res.body.data.token, /^tmwi_[A-Za-z0-9_-]{43}$/);
  return res.body.data.token;
}

async function join(owner: TestUser, member: TestUser, workspaceId: string, role: string) {
  const token = await invite(owner, workspaceId, role);
  const res = await request(server).post(`/invitations/${token}/accept`).set(bearer(member));
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

const whereAmI = (user: TestUser, workspaceId: string) =>
  request(server)
    .post("/tools/where_am_i")
    .set(bearer(user))
    .set("X-Workspace-Id", workspaceId)
    .send({});

async function rolesOf(workspaceId: string): Promise<string[]> {
  const rows = await app.workspaces?.Membership.find({ workspaceId }).lean<{ role: string }[]>();
  return (rows ?? []).map((row) => row.role).sort();
}

describe("workspaces: mine, create, rename", () => {
  test("the creator is the owner; GET /workspaces lists only the caller's, with their role", async () => {
    const ada = await signUp(server, "ada");
    const bob = await signUp(server, "bob");
    const id = await createWorkspace(ada, "Ada's shop");

    const mine = await request(server).get("/workspaces").set(bearer(ada));
    assert.equal(mine.status, 200);
    assert.deepEqual(mine.body.data, [{ id, name: "Ada's shop", role: "owner" }]);
    assert.equal(mine.headers["cache-control"], "no-store");

    const bobs = await request(server).get("/workspaces").set(bearer(bob));
    assert.deepEqual(bobs.body.data, []);

    const renamed = await request(server)
      .patch(`/workspaces/${id}`)
      .set(bearer(ada))
      .send({ name: "  The shop  " });
    assert.equal(renamed.status, 200);
    assert.deepEqual(renamed.body.data, { id, name: "The shop", role: "owner" });
  });

  test("bad bodies are 400 naming the field, and nothing is written", async () => {
    const ada = await signUp(server, "ada");
    for (const body of [{}, { name: "" }, { name: "x".repeat(201) }, { name: 5 }]) {
      const res = await request(server).post("/workspaces").set(bearer(ada)).send(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(res.body.fields.name);
    }
    const extra = await request(server)
      .post("/workspaces")
      .set(bearer(ada))
      .send({ name: "Shop", owner: "me" });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.fields.owner, "is not an allowed field");
    const mine = await request(server).get("/workspaces").set(bearer(ada));
    assert.deepEqual(mine.body.data, []);
  });

  test("anonymous callers get 401", async () => {
    assert.equal((await request(server).get("/workspaces")).status, 401);
    assert.equal((await request(server).post("/workspaces").send({ name: "x" })).status, 401);
  });
});

describe("workspaces: who may do what", () => {
  test("an outsider gets 404 everywhere, as for a workspace that does not exist", async () => {
    const ada = await signUp(server, "ada");
    const eve = await signUp(server, "eve");
    const id = await createWorkspace(ada, "Private");
    const missing = new mongoose.Types.ObjectId().toString();
    for (const workspaceId of [id, missing, "not-an-id"]) {
      const answers = await Promise.all([
        request(server).patch(`/workspaces/${workspaceId}`).set(bearer(eve)).send({ name: "x" }),
        request(server).get(`/workspaces/${workspaceId}/members`).set(bearer(eve)),
        request(server)
          .patch(`/workspaces/${workspaceId}/members/${ada.userId}`)
          .set(bearer(eve))
          .send({ role: "viewer" }),
        request(server).delete(`/workspaces/${workspaceId}/members/${ada.userId}`).set(bearer(eve)),
        request(server)
          .post(`/workspaces/${workspaceId}/invitations`)
          .set(bearer(eve))
          .send({ role: "owner" }),
      ]);
      for (const answer of answers) {
        assert.equal(answer.status, 404, `${workspaceId}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, "not_found");
      }
    }
    assert.deepEqual(await rolesOf(id), ["owner"]);
  });

  test("members and viewers read the members; only owners rename, invite and change roles", async () => {
    const ada = await signUp(server, "ada");
    const bob = await signUp(server, "bob");
    const cy = await signUp(server, "cy");
    const id = await createWorkspace(ada, "Team");
    await join(ada, bob, id, "member");
    await join(ada, cy, id, "viewer");

    const members = await request(server).get(`/workspaces/${id}/members`).set(bearer(cy));
    assert.equal(members.status, 200);
    assert.deepEqual(
      members.body.data.map((m: { userId: string; role: string }) => [m.userId, m.role]),
      [
        [ada.userId, "owner"],
        [bob.userId, "member"],
        [cy.userId, "viewer"],
      ],
    );

    for (const user of [bob, cy]) {
      const rename = await request(server)
        .patch(`/workspaces/${id}`)
        .set(bearer(user))
        .send({ name: "Mine now" });
      assert.equal(rename.status, 403);
      const promote = await request(server)
        .patch(`/workspaces/${id}/members/${user.userId}`)
        .set(bearer(user))
        .send({ role: "owner" });
      assert.equal(promote.status, 403);
      const invitation = await request(server)
        .post(`/workspaces/${id}/invitations`)
        .set(bearer(user))
        .send({ role: "viewer" });
      assert.equal(invitation.status, 403);
      const removeOther = await request(server)
        .delete(`/workspaces/${id}/members/${ada.userId}`)
        .set(bearer(user));
      assert.equal(removeOther.status, 403);
    }
    assert.deepEqual(await rolesOf(id), ["member", "owner", "viewer"]);

    const badRole = await request(server)
      .patch(`/workspaces/${id}/members/${bob.userId}`)
      .set(bearer(ada))
      .send({ role: "admin" });
    assert.equal(badRole.status, 400);
    assert.match(badRole.body.fields.role, /owner, member, viewer/);

    const demote = await request(server)
      .patch(`/workspaces/${id}/members/${bob.userId}`)
      .set(bearer(ada))
      .send({ role: "viewer" });
    assert.equal(demote.status, 200);
    assert.equal(demote.body.data.role, "viewer");

    const notMember = await request(server)
      .patch(`/workspaces/${id}/members/${new mongoose.Types.ObjectId()}`)
      .set(bearer(ada))
      .send({ role: "viewer" });
    assert.equal(notMember.status, 404);
  });

  test("anyone may leave; a member cannot be removed by a non-owner", async () => {
    const ada = await signUp(server, "ada");
    const bob = await signUp(server, "bob");
    const id = await createWorkspace(ada, "Club");
    await join(ada, bob, id, "viewer");
    const leave = await request(server)
      .delete(`/workspaces/${id}/members/${bob.userId}`)
      .set(bearer(bob));
    assert.equal(leave.status, 204);
    assert.deepEqual(await rolesOf(id), ["owner"]);
    const again = await request(server)
      .delete(`/workspaces/${id}/members/${bob.userId}`)
      .set(bearer(bob));
    assert.equal(again.status, 404);
  });

  test("a read-only personal access token may list but not write", async () => {
    const ada = await signUp(server, "ada");
    const id = await createWorkspace(ada, "Read only");
    const created = await request(server)
      .post("/auth/tokens")
      .set(bearer(ada))
      .send({ name: "reader", scope: "read" });
    assert.equal(created.status, 201);
    const reader = { Authorization: `Bearer ${created.body.data.token}` };
    const mine = await request(server).get("/workspaces").set(reader);
    assert.equal(mine.status, 200);
    assert.equal(mine.body.data.length, 1);
    const create = await request(server).post("/workspaces").set(reader).send({ name: "x" });
    assert.equal(create.status, 403);
    const rename = await request(server).patch(`/workspaces/${id}`).set(reader).send({ name: "y" });
    assert.equal(rename.status, 403);
  });
});

describe("workspaces: invitations", () => {
  test("an invitation makes the caller a member with its role, once; never by email", async () => {
    const ada = await signUp(server, "ada");
    const bob = await signUp(server, "bob");
    const cy = await signUp(server, "cy");
    const id = await createWorkspace(ada, "Invites");
    const created = await request(server)
      .post(`/workspaces/${id}/invitations`)
      .set(bearer(ada))
      .send({ role: "member", expiresInDays: 2 });
    assert.equal(created.status, 201);
    assert.equal(created.headers["cache-control"], "no-store");
    const { token, expiresAt, role, workspaceId } = created.body.data;
    assert.equal(role, "member");
    assert.equal(workspaceId, id);
    const days = (Date.parse(expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 1.9 && days <= 2, String(days));

    const anonymous = await request(server).post(`/invitations/${token}/accept`);
    assert.equal(anonymous.status, 401);

    const accepted = await request(server).post(`/invitations/${token}/accept`).set(bearer(bob));
    assert.equal(accepted.status, 200);
    assert.deepEqual(accepted.body.data, { id, name: "Invites", role: "member" });
    const bobs = await request(server).get("/workspaces").set(bearer(bob));
    assert.deepEqual(bobs.body.data, [{ id, name: "Invites", role: "member" }]);

    for (const user of [cy, bob]) {
      const used = await request(server).post(`/invitations/${token}/accept`).set(bearer(user));
      assert.equal(used.status, 404);
    }
    const garbage = await request(server).post("/invitations/tmwi_nope/accept").set(bearer(cy));
    assert.equal(garbage.status, 404);
    assert.deepEqual(await rolesOf(id), ["member", "owner"]);
  });

  test("a member who accepts another invitation gets 409, and the invitation stays usable", async () => {
    const ada = await signUp(server, "ada");
    const bob = await signUp(server, "bob");
    const id = await createWorkspace(ada, "Twice");
    const token = await invite(ada, id, "viewer");
    const mine = await request(server).post(`/invitations/${token}/accept`).set(bearer(ada));
    assert.equal(mine.status, 409);
    const bobs = await request(server).post(`/invitations/${token}/accept`).set(bearer(bob));
    assert.equal(bobs.status, 200);
    assert.equal(bobs.body.data.role, "viewer");
  });

  test("an expired invitation is refused", async () => {
    const ada = await signUp(server, "ada");
    const bob = await signUp(server, "bob");
    const id = await createWorkspace(ada, "Expiring");
    const created = await request(server)
      .post(`/workspaces/${id}/invitations`)
      .set(bearer(ada))
      .send({ role: "member" });
    await mongoose.connection
      .collection("terreno_workspace_invitations")
      .updateOne(
        { _id: new mongoose.Types.ObjectId(created.body.data.id as string) },
        { $set: { expiresAt: new Date(Date.now() - 1000) } },
      );
    const late = await request(server)
      .post(`/invitations/${created.body.data.token}/accept`)
      .set(bearer(bob));
    assert.equal(late.status, 404);
    assert.deepEqual(await rolesOf(id), ["owner"]);
  });

  test("invitation bodies are checked", async () => {
    const ada = await signUp(server, "ada");
    const id = await createWorkspace(ada, "Checked");
    for (const body of [
      {},
      { role: "boss" },
      { role: "member", expiresInDays: 0 },
      { role: "member", expiresInDays: 31 },
      { role: "member", expiresInDays: 1.5 },
      { role: "member", email: "bob@example.com" },
    ]) {
      const res = await request(server)
        .post(`/workspaces/${id}/invitations`)
        .set(bearer(ada))
        .send(body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
  });

  test("concurrent accepts of one invitation make exactly one member", async () => {
    const ada = await signUp(server, "ada");
    const id = await createWorkspace(ada, "Race");
    const token = await invite(ada, id, "member");
    const racers = await Promise.all(Array.from({ length: 12 }, () => signUp(server, "racer")));
    const answers = await Promise.all(
      racers.map((user) => request(server).post(`/invitations/${token}/accept`).set(bearer(user))),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, ...Array(11).fill(404)]);
    assert.deepEqual(await rolesOf(id), ["member", "owner"]);
  });
});

describe("workspaces: the last owner", () => {
  test("cannot demote or remove themselves (409); can once another owner exists", async () => {
    const ada = await signUp(server, "ada");
    const bob = await signUp(server, "bob");
    const id = await createWorkspace(ada, "Owners");
    const demote = await request(server)
      .patch(`/workspaces/${id}/members/${ada.userId}`)
      .set(bearer(ada))
      .send({ role: "member" });
    assert.equal(demote.status, 409);
    assert.equal(demote.body.code, "conflict");
    const leave = await request(server)
      .delete(`/workspaces/${id}/members/${ada.userId}`)
      .set(bearer(ada));
    assert.equal(leave.status, 409);
    assert.deepEqual(await rolesOf(id), ["owner"]);

    await join(ada, bob, id, "owner");
    const nowLeaves = await request(server)
      .delete(`/workspaces/${id}/members/${ada.userId}`)
      .set(bearer(ada));
    assert.equal(nowLeaves.status, 204);
    const bobAlone = await request(server)
      .patch(`/workspaces/${id}/members/${bob.userId}`)
      .set(bearer(bob))
      .send({ role: "viewer" });
    assert.equal(bobAlone.status, 409);
    assert.deepEqual(await rolesOf(id), ["owner"]);
  });

  test("two owners demoting and removing each other at once leave one owner", async () => {
    for (let round = 0; round < 3; round++) {
      const ada = await signUp(server, "ada");
      const bob = await signUp(server, "bob");
      const id = await createWorkspace(ada, `Standoff ${round}`);
      await join(ada, bob, id, "owner");
      const answers = await Promise.all([
        request(server)
          .patch(`/workspaces/${id}/members/${bob.userId}`)
          .set(bearer(ada))
          .send({ role: "member" }),
        request(server)
          .patch(`/workspaces/${id}/members/${ada.userId}`)
          .set(bearer(bob))
          .send({ role: "member" }),
        request(server).delete(`/workspaces/${id}/members/${ada.userId}`).set(bearer(ada)),
        request(server).delete(`/workspaces/${id}/members/${bob.userId}`).set(bearer(bob)),
      ]);
      const roles = await rolesOf(id);
      assert.equal(roles.filter((role) => role === "owner").length, 1, JSON.stringify(roles));
      assert.ok(
        answers.some((answer) => answer.status === 409),
        JSON.stringify(answers.map((a) => a.status)),
      );
    }
  });
});

describe("workspaces: removal ends access at once", () => {
  test("a removed member's next request no longer reaches the workspace", async () => {
    const ada = await signUp(server, "ada");
    const bob = await signUp(server, "bob");
    const id = await createWorkspace(ada, "Access");
    await join(ada, bob, id, "member");
    const before = await whereAmI(bob, id);
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.deepEqual(before.body.data, { id, name: "Access", role: "member" });

    const removed = await request(server)
      .delete(`/workspaces/${id}/members/${bob.userId}`)
      .set(bearer(ada));
    assert.equal(removed.status, 204);
    const after = await whereAmI(bob, id);
    assert.equal(after.status, 404);
    const members = await request(server).get(`/workspaces/${id}/members`).set(bearer(bob));
    assert.equal(members.status, 404);
  });

  test("a removed member's token bound to the workspace stops at once, and rejoining does not revive it", async () => {
    const ada = await signUp(server, "ada");
    const bob = await signUp(server, "bob");
    const id = await createWorkspace(ada, "Bound");
    await join(ada, bob, id, "member");
    const minted = await request(server)
      .post("/auth/tokens")
      .set(bearer(bob))
      .send({ name: "agent", scope: "write", workspaceId: id });
    assert.equal(minted.status, 201, JSON.stringify(minted.body));
    const agent = { ...bob, token: minted.body.data.token as string };
    const before = await request(server).post("/tools/where_am_i").set(bearer(agent)).send({});
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.equal(before.body.data.id, id);
    // A bound token manages its own workspace only, and cannot join others.
    const elsewhere = await request(server)
      .post("/workspaces")
      .set(bearer(agent))
      .send({ name: "x" });
    assert.equal(elsewhere.status, 403);

    const removed = await request(server)
      .delete(`/workspaces/${id}/members/${bob.userId}`)
      .set(bearer(ada));
    assert.equal(removed.status, 204);
    const after = await request(server).post("/tools/where_am_i").set(bearer(agent)).send({});
    assert.notEqual(after.status, 200);

    await join(ada, bob, id, "member");
    const rejoined = await request(server).post("/tools/where_am_i").set(bearer(agent)).send({});
    assert.equal(rejoined.status, 401, JSON.stringify(rejoined.body));
  });
});

describe("workspaces: audit, rate limits, OpenAPI", () => {
  test("every write is an audit event with the route, model and outcome", async () => {
    const ada = await signUp(server, "ada");
    const bob = await signUp(server, "bob");
    audit.length = 0;
    const id = await createWorkspace(ada, "Audited");
    await join(ada, bob, id, "viewer");
    await request(server).patch(`/workspaces/${id}`).set(bearer(bob)).send({ name: "x" });
    await request(server).delete(`/workspaces/${id}/members/${bob.userId}`).set(bearer(ada));
    const seen = audit.map((event) => [event.operation, event.model, event.action, event.outcome]);
    assert.deepEqual(seen, [
      ["POST /workspaces", "Workspace", "create", "success"],
      ["POST /workspaces/:id/invitations", "WorkspaceInvitation", "create", "success"],
      ["POST /invitations/:token/accept", "WorkspaceInvitation", "accept", "success"],
      ["PATCH /workspaces/:id", "Workspace", "update", "forbidden"],
      ["DELETE /workspaces/:id/members/:userId", "WorkspaceMembership", "delete", "success"],
    ]);
    // Writes to /workspaces/:id/... carry the workspace they acted in.
    assert.deepEqual(
      audit.map((event) => event.workspaceId),
      [undefined, id, undefined, id, id],
    );
    assert.equal(audit[0]?.documentId, id);
    assert.equal(audit[0]?.userId, ada.userId);
    assert.deepEqual(audit[0]?.fields, ["name"]);
  });

  test("writes spend the caller's write points", async () => {
    const limited = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: JWT_SECRET } },
      workspaces: true,
      rateLimit: { writes: { points: 2, duration: 60 } },
    }).build();
    const ada = await signUp(limited, "ada");
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(limited).post("/workspaces").set(bearer(ada)).send({ name: "w" });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [201, 201, 429]);
    // Reads spend nothing.
    assert.equal((await request(limited).get("/workspaces").set(bearer(ada))).status, 200);
  });

  test("the routes are in /openapi.json", async () => {
    const res = await request(server).get("/openapi.json");
    assert.equal(res.status, 200);
    const { paths, components } = res.body;
    assert.deepEqual(Object.keys(paths["/workspaces"]).sort(), ["get", "post"]);
    assert.ok(paths["/workspaces/{id}"].patch);
    assert.ok(paths["/workspaces/{id}/members"].get);
    assert.deepEqual(Object.keys(paths["/workspaces/{id}/members/{userId}"]).sort(), [
      "delete",
      "patch",
    ]);
    assert.ok(paths["/workspaces/{id}/invitations"].post);
    assert.ok(paths["/invitations/{token}/accept"].post);
    assert.deepEqual(components.schemas.Workspace.properties.role.enum, [
      "owner",
      "member",
      "viewer",
    ]);
  });

  test("an app without workspaces has none of the routes", async () => {
    const plain = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } });
    const res = await request(plain.build()).get("/workspaces");
    assert.equal(res.status, 404);
  });
});
