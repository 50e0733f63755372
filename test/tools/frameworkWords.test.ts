/**
 * The framework's own words never name the example app's models (issue #22 item 6): an app
 * with none of them sees no `todo`, `calories` or `food` in any tool description, schema
 * description or filter refusal.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import mongoose from "mongoose";
import { TerrenoError } from "../../src/core/errors.js";
import { buildFilter } from "../../src/core/filter.js";
import { IsAuthenticated } from "../../src/core/permissions.js";
import { defineResource } from "../../src/core/resource.js";
import { TerrenoApp } from "../../src/index.js";
import { modelRouter } from "../../src/rest/modelRouter.js";

const EXAMPLE_WORDS = /todo|calorie|food|priority/i;

const m = new mongoose.Mongoose();
const userSchema = new m.Schema({ email: String });
const User = m.model("User", userSchema);
const Gauge = m.model("Gauge", new m.Schema({ label: String, reading: Number }));
const options = {
  permissions: { list: [IsAuthenticated], read: [IsAuthenticated] },
  queryFields: ["label", "reading"] as Array<"label" | "reading">,
  mcp: { methods: ["list", "read"] as Array<"list" | "read"> },
};

/** Every string a model reads in a tool definition: descriptions at any depth, and titles. */
function wordsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) wordsOf(item, out);
  else if (value && typeof value === "object") {
    for (const item of Object.values(value)) wordsOf(item, out);
  }
  return out;
}

describe("framework words", () => {
  test("no tool of an app without the example's models names them", () => {
    const app = new TerrenoApp({
      userModel: User,
      auth: { jwt: { secret: "words-only" } },
      mcp: { discovery: true },
    });
    app.register(modelRouter(Gauge, options));
    const tools = app.toolDefinitions;
    assert.ok(tools.some((tool) => tool.name === "describe_models"));
    for (const tool of tools) {
      const { name, title, description, inputSchema, outputSchema } = tool;
      for (const text of wordsOf({ title, description, inputSchema, outputSchema })) {
        assert.doesNotMatch(text, EXAMPLE_WORDS, `${name}: ${text}`);
      }
    }
  });

  test("a refused $or names no example field", () => {
    const resource = defineResource(Gauge, options);
    const view = resource.views.rest;
    let thrown: unknown;
    try {
      buildFilter({ $or: "x" }, { description: resource.description, view });
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown instanceof TerrenoError);
    assert.doesNotMatch(JSON.stringify(thrown.fields), EXAMPLE_WORDS);
  });
});
