// The public API report (api/exports.md) matches what the entry points export: any change to the
// package's surface must come with `npm run api:update`, so it shows in review.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { API_REPORT, publicApiReport } from "../../scripts/publicApi.js";

test("api/exports.md lists exactly what every entry point exports (npm run api:update)", () => {
  assert.equal(publicApiReport(), fs.readFileSync(API_REPORT, "utf8"));
});
