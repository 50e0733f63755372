/**
 * Issue 33.12: an email that looks like an existing account's (`аlice@` with a Cyrillic а,
 * `alıce@` with a dotless i) was a second account, and so was `alice@example.com.`. Every
 * sign-up path now refuses a lookalike (the same UTS #39 confusable skeleton, kept under a
 * unique index so the refusal is the insert itself) and a domain ending in a dot; accounts
 * stored before the skeleton existed keep working and are covered too.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import {
  betterAuthPlugin,
  createBetterAuth,
  type TerrenoBetterAuth,
} from "../../src/auth/betterAuth.js";
import { hashPassword } from "../../src/auth/password.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo, User } from "../helpers/models.js";
import { authorizeUrl } from "../helpers/oauthFlow.js";
import { buildRestApp, JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import { Cookies, step } from "../oauth/httpFlow.js";
import {
  type OAuthTestServer,
  PASSWORD,
  pkce,
  registerClient,
  startOAuthApp,
} from "../oauth/oauthApp.js";

useTestDatabase("auth_email_lookalikes");

const CYRILLIC_A = "\u0430";
const DOTLESS_I = "\u0131";
const GREEK_OMICRON = "\u03bf";

const signup = (app: Express, email: string) =>
  request(app).post("/auth/signup").send({ email, password: PASSWORD });

const login = (app: Express, email: string) =>
  request(app).post("/auth/login").send({ email, password: PASSWORD });

/** How many stored users have exactly this email. */
const stored = (email: string) => User.countDocuments({ email: { $eq: email } });

describe("lookalike emails on POST /auth/signup", () => {
  let app: Express;
  before(() => {
    app = buildRestApp();
  });

  // First in this file: the skeletons of older users are filled in before a process's first
  // sign-up, so these users must be stored (as before the field existed) before any sign-up.
  test("users stored before the skeleton existed keep working and are covered", async () => {
    const passwordHash = await hashPassword(PASSWORD);
    const legacy = (email: string) =>
      User.collection.insertOne({ email, passwordHash, admin: false, disabled: false });
    await legacy("carol@example.com");
    // A lookalike pair and a trailing-dot address, from before they were refused.
    await legacy("dan@example.com");
    await legacy(`d${CYRILLIC_A}n@example.com`);
    await legacy("erin@example.com.");

    const first = await signup(app, "frank@example.com");
    assert.equal(first.status, 201, JSON.stringify(first.body));

    const carol = await signup(app, `c${CYRILLIC_A}rol@example.com`);
    assert.equal(carol.status, 409, JSON.stringify(carol.body));
    const dan = await signup(app, `d${CYRILLIC_A}n@ex${CYRILLIC_A}mple.com`);
    assert.equal(dan.status, 409, JSON.stringify(dan.body));
    // Every old account still signs in, the pair and the trailing dot included.
    for (const email of [
      "carol@example.com",
      "dan@example.com",
      `d${CYRILLIC_A}n@example.com`,
      "erin@example.com.",
    ]) {
      assert.equal((await login(app, email)).status, 200, email);
    }
    // One of the pair holds the skeleton; the other has none rather than a duplicate.
    const pair = await User.find({
      email: { $in: ["dan@example.com", `d${CYRILLIC_A}n@example.com`] },
    })
      .select("+emailSkeleton")
      .lean<Array<{ emailSkeleton?: string }>>();
    assert.equal(pair.filter((user) => typeof user.emailSkeleton === "string").length, 1);
  });

  test("a Cyrillic а, a dotless ı, a Greek ο or rn for m is refused: 409 naming the email", async () => {
    const created = await signup(app, "alice@example.com");
    assert.equal(created.status, 201, JSON.stringify(created.body));
    for (const email of [
      `${CYRILLIC_A}lice@example.com`,
      `al${DOTLESS_I}ce@example.com`,
      `alice@example.c${GREEK_OMICRON}m`,
      "alice@exarnple.com",
      `AL${DOTLESS_I}CE@EXAMPLE.COM`,
      // A Turkish İ lowercases to i with a dot above, which shows as i.
      "AL\u0130CE@example.com",
    ]) {
      const res = await signup(app, email);
      assert.equal(res.status, 409, `${email}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.fields.email, /looks the same as the email of an existing account/);
      // Nothing about which account: no address in the answer.
      assert.doesNotMatch(JSON.stringify(res.body), /alice@|@example/);
      assert.equal(await stored(email.normalize("NFKC").toLowerCase()), 0, email);
    }
    // The email itself keeps its own answer.
    const same = await signup(app, "Alice@example.com");
    assert.equal(same.status, 409);
    assert.match(
      same.body.detail ?? same.body.message ?? JSON.stringify(same.body),
      /already exists/,
    );
    assert.equal(same.body.fields, undefined);
    // The same host in its ASCII (punycode) form is the same address.
    assert.equal((await signup(app, "zoe@bücher.de")).status, 201);
    assert.equal((await signup(app, "zoe@xn--bcher-kva.de")).status, 409);
    // Different-looking addresses are still free.
    assert.equal((await signup(app, "alicé@example.com")).status, 201);
    assert.equal((await signup(app, "alice2@example.com")).status, 201);
  });

  test("a domain ending in a dot, or with an empty label, is a 400 naming the email", async () => {
    for (const [email, problem] of [
      ["bob@example.com.", /may not end with a dot/],
      ["bob@example..com", /must be an email address/],
      ["bob@.example.com", /must be an email address/],
    ] as const) {
      const res = await signup(app, email);
      assert.equal(res.status, 400, `${email}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.fields.email, problem);
    }
    assert.equal(await User.countDocuments({ email: /^bob@/ }), 0);
  });

  test("concurrent lookalike sign-ups: exactly one account, the rest 409, no 500", async () => {
    const lookalikes = [
      "grace@example.com",
      `gr${CYRILLIC_A}ce@example.com`,
      "grace@ex\u0430mple.com",
      `grace@example.c${GREEK_OMICRON}m`,
      "grace@exarnple.com",
      "ｇrace@example.com",
      `gr${CYRILLIC_A}ce@ex${CYRILLIC_A}mple.com`,
      "grace@exarnple.c\u03bfm",
      `gr${CYRILLIC_A}ce@exarnple.com`,
      "GRACE@example.com",
    ];
    const answers = await Promise.all(lookalikes.map((email) => signup(app, email)));
    const statuses = answers.map((res) => res.status).sort();
    assert.deepEqual(statuses, [201, ...Array(lookalikes.length - 1).fill(409)]);
    const created = await User.countDocuments({
      email: { $in: lookalikes.map((e) => e.normalize("NFKC").toLowerCase()) },
    });
    assert.equal(created, 1);
  });

  test("an email changed by an update query or a save gets its skeleton too", async () => {
    const henry = await signup(app, "henry@example.com");
    assert.equal(henry.status, 201);
    const id = henry.body.data.userId as string;
    await assert.rejects(
      User.updateOne({ _id: id }, { $set: { email: `${CYRILLIC_A}lice@example.com` } }),
      // A duplicate key: MongoDB's 11000, FerretDB's UNIQUE constraint on an update.
      (error: { code?: number; message?: string }) =>
        error.code === 11000 || /UNIQUE constraint/.test(error.message ?? ""),
    );
    await User.updateOne({ _id: id }, { email: "henry2@example.com" });
    const taken = await signup(app, `henry2@ex${CYRILLIC_A}mple.com`);
    assert.equal(taken.status, 409, JSON.stringify(taken.body));
    // The old address's skeleton went with it.
    assert.equal((await signup(app, "henry@example.com")).status, 201);
    // And by save.
    const doc = await User.findById(id).orFail();
    doc.set("email", "henry3@example.com");
    await doc.save();
    assert.equal((await signup(app, `henry3@ex${CYRILLIC_A}mple.com`)).status, 409);
    assert.equal((await signup(app, "henry2@example.com")).status, 201);
  });
});

/** The signed `oauth_query` a fresh browser is sent to the sign-in page with. */
async function signInQuery(server: OAuthTestServer) {
  const client = await registerClient(server.url);
  const cookies = new Cookies();
  const url = authorizeUrl({
    base: server.url,
    clientId: client,
    codeChallenge: pkce().challenge,
    scope: "mcp:read",
  });
  const first = await step(cookies, url);
  assert.ok(first.location, `authorize answered ${first.status}`);
  return { cookies, oauthQuery: new URL(first.location).search.slice(1) };
}

describe("lookalike emails on the OAuth sign-up page", () => {
  let server: OAuthTestServer;
  before(async () => {
    server = await startOAuthApp();
  });
  after(() => server.close());

  test("a lookalike and a trailing dot are refused on the page, in words, creating nothing", async () => {
    assert.equal((await signup(server.app, "ivan@example.com")).status, 201);
    const { cookies, oauthQuery } = await signInQuery(server);
    const post = (email: string) =>
      step(cookies, `${server.url}/oauth/signup`, {
        email,
        password: PASSWORD,
        oauth_query: oauthQuery,
      });

    const lookalike = await post(`iv${CYRILLIC_A}n@example.com`);
    assert.equal(lookalike.status, 409, lookalike.body.slice(0, 300));
    assert.match(lookalike.body, /Email looks the same as the email of an existing account/);
    assert.doesNotMatch(lookalike.body, /Sign in instead/);
    assert.doesNotMatch(lookalike.body, /ivan@example\.com/);
    assert.equal(lookalike.location, undefined);

    const dotted = await post("judy@example.com.");
    assert.equal(dotted.status, 400, dotted.body.slice(0, 300));
    assert.match(dotted.body, /Email may not end with a dot/);

    assert.equal(await stored(`iv${CYRILLIC_A}n@example.com`), 0);
    assert.equal(await stored("judy@example.com."), 0);
  });
});

describe("lookalike emails through Better Auth", () => {
  const ORIGIN = "http://localhost:3000";
  let app: Express;
  before(() => {
    const auth: TerrenoBetterAuth = createBetterAuth({
      secret: "better-auth-test-secret-0123456789abcdefghijklmnop",
      baseURL: ORIGIN,
      trustedOrigins: [ORIGIN],
      logger: { disabled: true },
      advanced: { disableOriginCheck: false },
    });
    app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
      .register(betterAuthPlugin(auth, { userModel: User }))
      .register(modelRouter(Todo, todoOptions()))
      .build();
  });

  test("a Better Auth user whose email looks like an app account's gets no app account: 401", async () => {
    assert.equal((await signup(app, "kim@example.com")).status, 201);
    // Better Auth takes only ASCII addresses; rn looks like m.
    const email = "kirn@example.com";
    const baSignup = await request(app)
      .post("/api/auth/sign-up/email")
      .set("Origin", ORIGIN)
      .send({ email, password: PASSWORD, name: "Not Kate" });
    assert.equal(baSignup.status, 200, JSON.stringify(baSignup.body));
    const token = baSignup.headers["set-auth-token"];
    const todos = await request(app).get("/todos").set("Authorization", `Bearer ${token}`);
    assert.equal(todos.status, 401, JSON.stringify(todos.body));
    assert.match(JSON.stringify(todos.body), /looks the same as the email of an existing account/);
    assert.equal(await stored(email), 0);
  });
});
