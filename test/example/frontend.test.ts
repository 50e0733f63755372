/**
 * The example serves its web page at `/` given `frontendDir` (a tiny stand-in page here; the
 * real one is built by Vite and driven in a browser elsewhere), falls back to the page for
 * browser navigations to client-side routes, and never shadows an API route.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Express } from "express";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";

useTestDatabase("example_frontend");

const SECRET = "example-frontend-test-secret-long-enough";
const PAGE =
  '<!doctype html><html><head><script type="module" src="/assets/app-1a2b.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = 'document.getElementById("root").textContent = "hi";';
const HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"; // a browser's

describe("example web page", () => {
  let dir: string;
  let app: Express;
  let ada: TestUser;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "example-page-"));
    fs.mkdirSync(path.join(dir, "assets"));
    fs.writeFileSync(path.join(dir, "index.html"), PAGE);
    fs.writeFileSync(path.join(dir, "assets", "app-1a2b.js"), SCRIPT);
    app = createExampleApp({ jwtSecret: SECRET, env: {}, frontendDir: dir }).build();
    ada = await signUp(app, "page-ada");
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("/ is the page, with a CSP that lets its same-origin module scripts run", async () => {
    const res = await request(app).get("/");
    assert.equal(res.status, 200);
    assert.match(res.headers["content-type"], /text\/html/);
    assert.equal(res.text, PAGE);
    assert.equal(res.headers["cache-control"], "no-cache");
    const csp = String(res.headers["content-security-policy"]);
    // Same-origin scripts, plus the MCP Apps views' one inline script each, by hash: never
    // 'unsafe-inline' or 'unsafe-eval'.
    assert.match(csp, /script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')*(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(csp, /connect-src 'self'/);
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);

    const script = await request(app).get("/assets/app-1a2b.js");
    assert.equal(script.status, 200);
    assert.match(script.headers["content-type"], /javascript/);
    assert.equal(script.text, SCRIPT);
    assert.match(script.headers["cache-control"], /immutable/);
  });

  test("a browser navigating to a client-side route gets the page", async () => {
    for (const route of ["/conversations/abc", "/settings", "/conversations/abc/"]) {
      const res = await request(app).get(route).set("Accept", HTML);
      assert.equal(res.status, 200, route);
      assert.equal(res.text, PAGE, route);
    }
  });

  test("API routes stay JSON, even for a browser", async () => {
    await request(app).post("/todos").set(bearer(ada)).send({ title: "Page test" });
    for (const accept of [HTML, "application/json"]) {
      const todos = await request(app).get("/todos").set(bearer(ada)).set("Accept", accept);
      assert.equal(todos.status, 200);
      assert.match(todos.headers["content-type"], /application\/json/);
      assert.equal(todos.body.data[0].title, "Page test");
    }
    for (const route of ["/todos", "/foods/123", "/users", "/auth/me", "/chat/info", "/mcp"]) {
      const res = await request(app).get(route).set("Accept", HTML);
      assert.match(res.headers["content-type"], /application\/json/, route);
      assert.notEqual(res.text, PAGE, route);
    }
    const spec = await request(app).get("/openapi.json").set("Accept", HTML);
    assert.equal(spec.status, 200);
    assert.match(spec.body.openapi, /^3\.1/);
    const docs = await request(app).get("/docs/").set("Accept", HTML);
    assert.equal(docs.status, 200);
    assert.match(docs.text, /swagger/i);
    // Writes never reach the page.
    const post = await request(app).post("/conversations/abc").set("Accept", HTML).send({});
    assert.equal(post.status, 404);
    assert.equal(post.body.code, "not_found");
  });

  test("an unknown path that does not ask for HTML is the framework's JSON 404", async () => {
    for (const accept of ["application/json", "*/*"]) {
      const res = await request(app).get("/conversations/abc").set("Accept", accept);
      assert.equal(res.status, 404, accept);
      assert.match(res.headers["content-type"], /application\/json/);
      assert.equal(res.body.code, "not_found");
    }
    // A missing asset is a 404, not the page (a browser would run HTML as a script).
    const missing = await request(app).get("/assets/gone-9z9z.js").set("Accept", HTML);
    assert.equal(missing.status, 404);
  });

  test("without frontendDir the example serves the API only", async () => {
    const apiOnly = createExampleApp({ jwtSecret: SECRET, env: {} }).build();
    const res = await request(apiOnly).get("/").set("Accept", HTML);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, "not_found");
  });

  test("a frontendDir without index.html fails at start, naming the file", () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "example-empty-"));
    try {
      assert.throws(
        () => createExampleApp({ jwtSecret: SECRET, env: {}, frontendDir: empty }),
        /index\.html does not exist/,
      );
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
