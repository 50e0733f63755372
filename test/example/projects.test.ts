/**
 * The example's workspaces and projects: the role matrix (viewers list and read, members also
 * create and update, owners also delete) over REST and MCP, a workspace's projects invisible
 * from another, the lead a member of the same workspace, nothing made at sign-up, and the
 * budget only the workspace's owners see (a field rule judged with the current workspace).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { connectClient, type Listening, listen, toolError } from "../helpers/mcpClients.js";

useTestDatabase("example-projects");

const PROJECT_TOOLS = [
  "projects_create",
  "projects_delete",
  "projects_list",
  "projects_read",
  "projects_update",
];

describe("example: workspaces and projects", () => {
  const express = createExampleApp({
    jwtSecret: "example-projects-secret-long-enough",
    env: {},
  }).build();
  let server: Listening;
  let ada: TestUser; // owner of "Acme"
  let bob: TestUser; // member of "Acme"
  let cy: TestUser; // viewer of "Acme"
  let dan: TestUser; // owner of "Globex"
  let acme: string;
  let globex: string;

  async function createWorkspace(owner: TestUser, name: string): Promise<string> {
    const res = await request(express).post("/workspaces").set(bearer(owner)).send({ name });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data.id;
  }

  async function join(member: TestUser, workspaceId: string, role: string): Promise<void> {
    const invitation = await request(express)
      .post(`/workspaces/${workspaceId}/invitations`)
      .set(bearer(ada))
      .send({ role });
    assert.equal(invitation.status, 201);
    const accepted = await request(express)
      .post(`/invitations/${invitation.body.data.token}/accept`)
      .set(bearer(member));
    assert.equal(accepted.status, 200);
  }

  async function toolsOf(user: TestUser): Promise<string[]> {
    const client = await connectClient("v2-auto", server.url, user.token);
    try {
      return (await client.listTools())
        .map((tool) => tool.name)
        .filter((name) => name.startsWith("projects_"));
    } finally {
      await client.close();
    }
  }

  before(async () => {
    server = await listen(express);
    [ada, bob, cy, dan] = await Promise.all(
      ["ada", "bob", "cy", "dan"].map((name) => signUp(express, name)),
    );
    acme = await createWorkspace(ada, "Acme");
    globex = await createWorkspace(dan, "Globex");
    await join(bob, acme, "member");
    await join(cy, acme, "viewer");
  });
  after(() => server.close());

  test("nothing is made at sign-up: a new user has no workspace and no project tools", async () => {
    const newcomer = await signUp(express, "newcomer");
    const mine = await request(express).get("/workspaces").set(bearer(newcomer));
    assert.deepEqual(mine.body.data, []);
    assert.deepEqual(await toolsOf(newcomer), []);
    const list = await request(express).get("/projects").set(bearer(newcomer));
    assert.ok(list.status >= 400, `${list.status}`);
  });

  test("REST: viewers list and read, members also create and update, owners also delete", async () => {
    const made = await request(express)
      .post("/projects")
      .set(bearer(bob))
      .send({ name: "Rocket", lead: cy.userId });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const project = made.body.data;
    assert.equal(project.status, "planned");
    assert.equal(project.workspaceId, acme);
    const path = `/projects/${project.id}`;

    for (const user of [ada, bob, cy]) {
      const list = await request(express).get("/projects").set(bearer(user));
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.data.map((p: { name: string }) => p.name),
        ["Rocket"],
      );
      assert.equal((await request(express).get(path).set(bearer(user))).status, 200);
    }

    const viewerCreates = await request(express)
      .post("/projects")
      .set(bearer(cy))
      .send({ name: "Not mine to make" });
    assert.equal(viewerCreates.status, 403);
    const viewerUpdates = await request(express)
      .patch(path)
      .set(bearer(cy))
      .send({ status: "done" });
    assert.equal(viewerUpdates.status, 403);

    const memberUpdates = await request(express)
      .patch(path)
      .set(bearer(bob))
      .send({ status: "active" });
    assert.equal(memberUpdates.status, 200);
    assert.equal(memberUpdates.body.data.status, "active");

    for (const user of [cy, bob]) {
      assert.equal((await request(express).delete(path).set(bearer(user))).status, 403);
    }
    assert.equal((await request(express).delete(path).set(bearer(ada))).status, 204);
    assert.equal((await request(express).get(path).set(bearer(ada))).status, 404);
  });

  test("fields: name required, status one of three, the workspace set by the server", async () => {
    const noName = await request(express).post("/projects").set(bearer(bob)).send({});
    assert.equal(noName.status, 400);
    assert.ok(noName.body.fields.name);
    const badStatus = await request(express)
      .post("/projects")
      .set(bearer(bob))
      .send({ name: "X", status: "someday" });
    assert.equal(badStatus.status, 400);
    const elsewhere = await request(express)
      .post("/projects")
      .set(bearer(bob))
      .send({ name: "Smuggled", workspaceId: globex });
    assert.equal(elsewhere.status, 400);
    const outsiderLead = await request(express)
      .post("/projects")
      .set(bearer(bob))
      .send({ name: "Led from outside", lead: dan.userId });
    assert.equal(outsiderLead.status, 400);
    assert.equal(outsiderLead.body.fields.lead, "must be a member of this workspace");
    const danList = await request(express).get("/projects").set(bearer(dan));
    assert.deepEqual(danList.body.data, []);
  });

  test("another workspace's project does not exist for an outsider", async () => {
    const made = await request(express).post("/projects").set(bearer(ada)).send({ name: "Secret" });
    assert.equal(made.status, 201);
    const path = `/projects/${made.body.data.id}`;
    assert.equal((await request(express).get(path).set(bearer(dan))).status, 404);
    const patch = await request(express).patch(path).set(bearer(dan)).send({ name: "Mine" });
    assert.equal(patch.status, 404);
    assert.equal((await request(express).delete(path).set(bearer(dan))).status, 404);
    const headerElsewhere = await request(express)
      .get("/projects")
      .set(bearer(dan))
      .set("X-Workspace-Id", acme);
    assert.equal(headerElsewhere.status, 404);
    const daniel = await request(express).get("/projects").set(bearer(dan));
    assert.ok(daniel.body.data.every((p: { workspaceId: string }) => p.workspaceId === globex));
  });

  test("the lead is shown by name; a member of two workspaces chooses one with the header", async () => {
    const led = await request(express)
      .post("/projects?populate=lead")
      .set(bearer(ada))
      .send({ name: "Led", lead: bob.userId });
    assert.equal(led.status, 201, JSON.stringify(led.body));
    assert.deepEqual(led.body.data.lead, { id: bob.userId, name: "bob" });

    const eve = await signUp(express, "eve");
    const first = await createWorkspace(eve, "Eve one");
    const second = await createWorkspace(eve, "Eve two");
    const unchosen = await request(express).get("/projects").set(bearer(eve));
    assert.equal(unchosen.status, 400);
    assert.match(unchosen.body.detail, /X-Workspace-Id/);
    assert.match(unchosen.body.detail, new RegExp(`Eve one \\(id ${first}`));
    const made = await request(express)
      .post("/projects")
      .set(bearer(eve))
      .set("X-Workspace-Id", second)
      .send({ name: "In two" });
    assert.equal(made.status, 201);
    assert.equal(made.body.data.workspaceId, second);
    const inFirst = await request(express)
      .get("/projects")
      .set(bearer(eve))
      .set("X-Workspace-Id", first);
    assert.deepEqual(inFirst.body.data, []);
  });

  test("MCP: each role sees the project tools it may use, and they act in its workspace", async () => {
    assert.deepEqual(await toolsOf(ada), PROJECT_TOOLS);
    assert.deepEqual(await toolsOf(bob), [
      "projects_create",
      "projects_list",
      "projects_read",
      "projects_update",
    ]);
    assert.deepEqual(await toolsOf(cy), ["projects_list", "projects_read"]);

    let overMcp = "";
    const client = await connectClient("v2-auto", server.url, bob.token);
    try {
      const created = await client.callTool("projects_create", { name: "Over MCP" });
      assert.ok(!created.isError, JSON.stringify(created.content));
      const data = (created.structuredContent as { data: { id: string; workspaceId: string } })
        .data;
      assert.equal(data.workspaceId, acme);
      overMcp = data.id;
      const listed = await client.callTool("projects_list", {});
      const names = (listed.structuredContent as { data: Array<{ name: string }> }).data.map(
        (p) => p.name,
      );
      assert.ok(names.includes("Over MCP"));
    } finally {
      await client.close();
    }

    const outsider = await connectClient("v2-auto", server.url, dan.token);
    try {
      const listed = await outsider.callTool("projects_list", {});
      const names = (listed.structuredContent as { data: Array<{ name: string }> }).data.map(
        (p) => p.name,
      );
      assert.ok(!names.includes("Over MCP"));
      const read = await outsider.callTool("projects_read", { id: overMcp });
      assert.equal(read.isError, true);
      assert.equal(toolError(read).code, "not_found");
    } finally {
      await outsider.close();
    }
  });

  test("budgetCents: owners see, sort and filter by it; to members and viewers it is unknown", async () => {
    for (const [name, budgetCents] of [
      ["Budget small", 500],
      ["Budget large", 90_000],
    ] as const) {
      const made = await request(express)
        .post("/projects")
        .set(bearer(ada))
        .send({ name, budgetCents });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.data.budgetCents, budgetCents);
    }
    const fractional = await request(express)
      .post("/projects")
      .set(bearer(ada))
      .send({ name: "Budget fraction", budgetCents: 1.5 });
    assert.equal(fractional.status, 400, JSON.stringify(fractional.body));
    // A member may not write what they may not read: refused as an unknown field is.
    const memberWrites = await request(express)
      .post("/projects")
      .set(bearer(bob))
      .send({ name: "Budget by a member", budgetCents: 1 });
    const memberUnknown = await request(express)
      .post("/projects")
      .set(bearer(bob))
      .send({ name: "Unknown by a member", budgetCentz: 1 });
    assert.equal(memberWrites.status, 400, JSON.stringify(memberWrites.body));
    assert.equal(memberWrites.status, memberUnknown.status);
    assert.equal(memberWrites.body.code, memberUnknown.body.code);

    const ownerSorted = await request(express)
      .get("/projects?name[$regex]=^Budget&sort=-budgetCents")
      .set(bearer(ada));
    assert.equal(ownerSorted.status, 200, JSON.stringify(ownerSorted.body));
    assert.deepEqual(
      ownerSorted.body.data.map((p: { name: string; budgetCents: number }) => [
        p.name,
        p.budgetCents,
      ]),
      [
        ["Budget large", 90_000],
        ["Budget small", 500],
      ],
    );
    const ownerFiltered = await request(express).get("/projects?budgetCents=500").set(bearer(ada));
    assert.equal(ownerFiltered.status, 200, JSON.stringify(ownerFiltered.body));
    assert.deepEqual(
      ownerFiltered.body.data.map((p: { name: string }) => p.name),
      ["Budget small"],
    );

    for (const user of [bob, cy]) {
      const list = await request(express).get("/projects").set(bearer(user));
      assert.equal(list.status, 200);
      assert.ok(list.body.data.some((p: { name: string }) => p.name === "Budget large"));
      assert.equal(list.text.includes("budgetCents"), false, list.text);
      assert.equal(list.text.includes("90000"), false, list.text);
      for (const [hidden, unknown] of [
        ["/projects?sort=-budgetCents", "/projects?sort=-budgetCentz"],
        ["/projects?budgetCents=500", "/projects?budgetCentz=500"],
      ]) {
        const refused = await request(express).get(hidden).set(bearer(user));
        const asUnknown = await request(express).get(unknown).set(bearer(user));
        assert.equal(refused.status, 400, JSON.stringify(refused.body));
        assert.equal(refused.status, asUnknown.status);
        assert.equal(refused.body.code, asUnknown.body.code);
        assert.equal(
          JSON.stringify(refused.body).replaceAll("budgetCents", "X"),
          JSON.stringify(asUnknown.body).replaceAll("budgetCentz", "X"),
        );
      }
    }

    const owner = await connectClient("v2-auto", server.url, ada.token);
    try {
      const listed = await owner.callTool("projects_list", {
        filter: { budgetCents: 90_000 },
        sort: "-budgetCents",
      });
      assert.ok(!listed.isError, JSON.stringify(listed.content));
      assert.deepEqual(
        (
          listed.structuredContent as { data: Array<{ name: string; budgetCents: number }> }
        ).data.map((p) => [p.name, p.budgetCents]),
        [["Budget large", 90_000]],
      );
    } finally {
      await owner.close();
    }
    for (const user of [bob, cy]) {
      const client = await connectClient("v2-auto", server.url, user.token);
      try {
        const listed = await client.callTool("projects_list", {});
        assert.ok(!listed.isError, JSON.stringify(listed.content));
        assert.equal(JSON.stringify(listed.structuredContent).includes("budgetCents"), false);
        for (const [hidden, unknown] of [
          [{ sort: "-budgetCents" }, { sort: "-budgetCentz" }],
          [{ filter: { budgetCents: 500 } }, { filter: { budgetCentz: 500 } }],
        ]) {
          const refused = await client.callTool("projects_list", hidden);
          const asUnknown = await client.callTool("projects_list", unknown);
          assert.equal(refused.isError, true, JSON.stringify(refused.content));
          assert.equal(asUnknown.isError, true);
          assert.equal(toolError(refused).code, toolError(asUnknown).code);
          assert.equal(
            JSON.stringify(toolError(refused)).replaceAll("budgetCents", "X"),
            JSON.stringify(toolError(asUnknown)).replaceAll("budgetCentz", "X"),
          );
        }
      } finally {
        await client.close();
      }
    }
  });
});
