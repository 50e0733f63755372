/**
 * Registration closes when the app is built (or its tools or services are first read): what the
 * app derives from it (tools, services, audit observer, MCP Apps views) is computed once, so
 * every surface and every build() holds the very same objects, and a router, plugin or tool
 * registered too late is a clear error instead of a change some surfaces would miss.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import type { AppContext, TerrenoPlugin } from "../../src/plugin/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { Food, Todo, User } from "../helpers/models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";

const TOO_LATE = /after build\(\): register every router, plugin and tool before the app is built/;

/** A plugin that keeps the context of every build it is registered in. */
function recorder(): { plugin: TerrenoPlugin; contexts: AppContext[] } {
  const contexts: AppContext[] = [];
  return { plugin: { name: "recorder", register: (_app, ctx) => contexts.push(ctx) }, contexts };
}

function todoApp(options: ConstructorParameters<typeof TerrenoApp>[0] = {}): TerrenoApp {
  return new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } }, ...options })
    .register(modelRouter(Todo, todoOptions()))
    .tool("ping", { description: "Answers pong.", handler: () => "pong" });
}

describe("registration freezes at build()", () => {
  test("register() and tool() after build() throw, saying to register first", () => {
    const app = todoApp();
    app.build();
    assert.throws(
      () => app.register(modelRouter(Food, foodOptions())),
      /^Error: TerrenoApp: register\(\)/,
    );
    assert.throws(() => app.register("/foods", modelRouter(Food, foodOptions())), TOO_LATE);
    assert.throws(() => app.register(recorder().plugin), TOO_LATE);
    assert.throws(
      () => app.tool("late", { description: "Too late.", handler: () => null }),
      /^Error: TerrenoApp: tool\(\) after build\(\)/,
    );
    // The refused registrations changed nothing.
    assert.ok(!app.toolDefinitions.some((tool) => tool.name.startsWith("foods_")));
    assert.ok(!app.toolDefinitions.some((tool) => tool.name === "late"));
  });

  test("reading the tools or services closes registration too", () => {
    const byTools = todoApp();
    assert.ok(byTools.toolDefinitions.some((tool) => tool.name === "ping"));
    assert.throws(() => byTools.register(modelRouter(Food, foodOptions())), TOO_LATE);
    const byServices = todoApp();
    assert.ok(byServices.services.tools.length > 0);
    assert.throws(
      () => byServices.tool("late", { description: "x", handler: () => null }),
      TOO_LATE,
    );
  });

  test("the derived state is computed once: every read and every build share it", () => {
    const { plugin, contexts } = recorder();
    const app = todoApp({ mcp: { apps: true }, onAudit: () => {} }).register(plugin);
    app.build();
    app.build();
    assert.equal(contexts.length, 2);
    assert.equal(app.services, app.services);
    assert.equal(app.toolDefinitions, app.services.tools);
    assert.equal(app.observer, app.services.observer);
    assert.ok(app.observer, "onAudit makes an observer");
    assert.ok(app.appViews, "mcp.apps makes the views");
    assert.equal(app.appViews, app.appViews);
    for (const ctx of contexts) {
      assert.equal(ctx.services, app.services);
      assert.equal(ctx.appViews, app.appViews);
    }
  });

  test("a plugin's context is its one handle: the app's named limiters and views", () => {
    const { plugin, contexts } = recorder();
    const app = todoApp().register(plugin);
    app.build();
    const [ctx] = contexts;
    const window = { points: 3, duration: 10 };
    assert.equal(ctx.rateLimiter("plugin", window), app.rateLimiter("plugin", window));
    assert.equal(ctx.appViews, undefined, "no views without mcp.apps");
    assert.equal(ctx.logger, app.logger);
  });
});
