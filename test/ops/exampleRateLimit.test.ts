/**
 * The example's rate limits on a shared database (issue 33, info item): with MONGODB_URI set it
 * keeps its counters in that database, and on FerretDB those counters are exact only over one
 * connection (docs/rate-limits-and-audit.md, "FerretDB 1.x"). A burst of 45 auth requests at
 * once from one address, against the example's 30 a minute: 30 pass, 15 are refused. Runs on
 * the suite's database (FerretDB 1.x unless MONGODB_URI is set); the store's connection is
 * closed with the others by mongoose.disconnect() after the file.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import request from "supertest";
import { createExampleApp } from "../../example-backend/app.js";
import { exampleCounterStore } from "../../example-backend/counterStore.js";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase("ops_example_rate_limit");

describe("the example's rate limiter on MONGODB_URI", () => {
  test("45 concurrent auth requests against its 30 a minute: exactly 30 pass", async () => {
    // As server.ts does with MONGODB_URI set.
    const counters = exampleCounterStore({ MONGODB_URI: database.current().uri });
    after(() => counters.close());
    const terreno = createExampleApp({
      jwtSecret: "example-rate-limit-secret-of-32-chars!",
      env: {},
      rateLimitStore: counters.store,
    });
    const app = terreno.build();
    await terreno.rateLimits.ready();
    const statuses = await Promise.all(
      Array.from({ length: 45 }, () =>
        request(app)
          .post("/auth/refresh_token")
          .send({ refreshToken: "not-a-refresh-token" })
          .then((res) => res.status),
      ),
    );
    const refused = statuses.filter((status) => status === 429).length;
    assert.equal(refused, 15, `${statuses}`);
    assert.equal(statuses.length - refused, 30, `${statuses}`);
  });
});
