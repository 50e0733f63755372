/**
 * Layer rules for src/, checked in CI by `npm run check:deps` (dependency-cruiser). Type-only
 * imports count too: a type import from a higher layer is still a dependency on it.
 *
 *   schema  →  core  →  tools · ops · auth · http · workspaces (shared services)  →  adapters  →  app, cli, index
 *   adapters: rest, mcp, ai, chat, openapi, oauth, react (they never import each other)
 *
 * The plugin contract (src/plugin: TerrenoPlugin, AppContext, TerrenoAppOptions) is types only:
 * the services and adapters that are plugins import it, and it names their types back (type-only
 * imports, never a value). Nothing below src/app imports src/app (scripts/checkLayerRules.ts,
 * run by check:deps, proves the rule fires). What two adapters share sits below them: the AI
 * SDK tool set (ai and chat) in src/tools/aiSdk, the default MCP path (mcp and oauth) in
 * src/http, and plugins mount their own models with `AppContext.modelRouter`, not src/rest.
 * No exceptions: a new violation fails CI.
 */

const TRANSPORTS = [
  "express",
  "@types/express",
  "@types/express-serve-static-core",
  "@modelcontextprotocol/[^/]+",
  "ai",
  "@ai-sdk/[^/]+",
  "better-auth",
  "@better-auth/[^/]+",
  "react",
  "@types/react",
  "helmet",
  "cors",
  "swagger-ui-express",
];
const transportPath = `(^|/)node_modules/(${TRANSPORTS.join("|")})/`;

const ADAPTERS = "rest|mcp|ai|chat|openapi|oauth|react";
const SERVICES = "tools|ops|auth|http|workspaces";
const LOWER = `^src/(schema|core|plugin|${SERVICES}|${ADAPTERS})/`;

const rules = [
  {
    name: "no-circular",
    comment: "No import circles: a shared type goes to a types file both sides import.",
    severity: "error",
    from: { path: "^src/" },
    to: { circular: true },
  },
  {
    name: "core-no-transport",
    comment: "src/core and src/schema know nothing of HTTP, MCP, the AI SDK, auth libraries or UI.",
    severity: "error",
    from: { path: "^src/(core|schema)/" },
    to: { path: transportPath },
  },
  {
    name: "core-no-higher-layer",
    comment: "src/core and src/schema import only each other (and libraries).",
    severity: "error",
    from: { path: "^src/(core|schema)/" },
    to: { path: "^src/", pathNot: "^src/(core|schema)/" },
  },
  {
    name: "schema-below-core",
    comment: "src/schema describes models and sits below the core: it never imports src/core.",
    severity: "error",
    from: { path: "^src/schema/" },
    to: { path: "^src/core/" },
  },
  {
    name: "no-import-into-app",
    comment:
      "src/app is the top layer: no module below it (schema, core, the plugin contract, shared " +
      "services, adapters) imports it. A plugin takes what it needs from AppContext (src/plugin).",
    severity: "error",
    from: { path: LOWER },
    to: { path: "^src/app/" },
  },
  {
    name: "no-higher-layer",
    comment:
      "Shared services (tools, ops, auth, http), adapters and the plugin contract never import " +
      "the CLI or the root index.",
    severity: "error",
    from: { path: LOWER },
    to: { path: "^src/(cli/|index\\.ts$)" },
  },
  {
    name: "plugin-contract-types-only",
    comment:
      "src/plugin is the plugin contract, types only: it may name the types of the layers whose " +
      "plugins it describes (type-only imports), but loads no code of theirs.",
    severity: "error",
    from: { path: "^src/plugin/" },
    to: { path: "^src/", pathNot: "^src/(plugin|core|schema)/", dependencyTypesNot: ["type-only"] },
  },
  {
    name: "services-no-adapter",
    comment: "Shared services (tools, ops, auth, http) never import an adapter.",
    severity: "error",
    from: { path: `^src/(${SERVICES})/` },
    to: { path: `^src/(${ADAPTERS})/` },
  },
  {
    name: "no-adapter-to-adapter",
    comment:
      "Adapters (rest, mcp, ai, chat, openapi, oauth, react) never import each other: what two " +
      "share goes to core, schema, tools, ops, auth or the shared HTTP layer (src/http).",
    severity: "error",
    from: { path: `^src/(${ADAPTERS})/` },
    to: { path: `^src/(${ADAPTERS})/`, pathNot: "^src/$1/" },
  },
  {
    name: "root-no-optional-peer",
    comment:
      "The package root never loads an optional peer (ai, better-auth, react, the MCP client): " +
      "what needs one is only reachable from its own entry point (terreno-mcp/ai, /chat...).",
    severity: "error",
    from: { path: "^src/index\\.ts$" },
    to: {
      path: "(^|/)node_modules/(ai|@ai-sdk/[^/]+|better-auth|@better-auth/[^/]+|react|@modelcontextprotocol/client)/",
      reachable: true,
    },
  },
  {
    name: "chat-without-demo",
    comment:
      "terreno-mcp/chat never loads the offline demo model: it is only reachable from its own " +
      "entry point, terreno-mcp/chat/demo (src/chat/demo.ts).",
    severity: "error",
    from: { path: "^src/chat/index\\.ts$" },
    to: { path: "^src/chat/demo(Model|Intent|Prompt)\\.ts$", reachable: true },
  },
  {
    name: "no-testing-in-src",
    comment: "src/testing (the FerretDB helper) is for tests; nothing else in src/ imports it.",
    severity: "error",
    from: { path: "^src/", pathNot: "^src/testing/" },
    to: { path: "^src/testing/" },
  },
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: rules,
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "\\.test\\.ts$" },
  },
};
