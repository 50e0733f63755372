/** `TerrenoAppOptions.mcp`: the options of the MCP endpoint. */
import type { DiscoveryOptions } from "../tools/discovery/discoveryTools.js";
import type { RecordResourceOptions } from "./recordResources.js";
import type { McpOAuthOptions } from "./resourceMetadata.js";

export interface McpEndpointOptions {
  /** Default `/mcp`. */
  path?: string;
  /** Set false to never mount the endpoint. Default true (mounted when a router opts in). */
  enabled?: boolean;
  /** Browser origins allowed to call the endpoint; requests without `Origin` are always allowed. */
  allowedOrigins?: string[];
  /** Server name reported to MCP clients. */
  name?: string;
  version?: string;
  /**
   * The endpoint's canonical URL, e.g. `https://api.example.com/mcp`: the `resource` of its
   * OAuth Protected Resource Metadata and the audience OAuth access tokens must be issued for.
   * Default: derived per request from its protocol and Host (`http://127.0.0.1:4000/mcp`);
   * set it in production.
   */
  resourceUrl?: string;
  /**
   * The OAuth side of the endpoint's Protected Resource Metadata (RFC 9728), served at
   * `/.well-known/oauth-protected-resource/mcp`: the authorization servers MCP clients may get
   * tokens from, and the scopes they may ask for.
   */
  oauth?: McpOAuthOptions;
  /**
   * Discovery tools: `describe_models` (the models, fields and relationships the caller can
   * reach, with a fuzzy `query`) and `whoami` (who the caller is). `true`, or options such as
   * `{whoamiFields: ["name"]}` (the user fields whoami returns; default `["name"]`). Signed-in
   * callers only; read-only. Default off.
   */
  discovery?: boolean | DiscoveryOptions;
  /**
   * Records as MCP resources: each model with a read tool has the template
   * `terreno://{prefix}/{id}` (`resources/read` answers what the read tool answers),
   * `resources/list` lists the caller's most recent records per model, `completion/complete`
   * offers the caller's own ids, and tool results link the records they return. `false`
   * turns all of it off; options set the scheme and the list's size. Default on.
   */
  resources?: boolean | RecordResourceOptions;
  /**
   * MCP Apps (the `io.modelcontextprotocol/ui` extension): each model's list tool links a table
   * view and its read tool a record card (`_meta.ui.resourceUri`, a `ui://terreno/<tool>`
   * resource of type `text/html;profile=mcp-app`), generated from the same view as the tool
   * schemas, so hidden fields never appear. Hosts that render apps draw the tool's result in
   * it; others read the same text content as before. Default off.
   */
  apps?: boolean;
  /**
   * The change tools (needs the app's `changes` on): `changes_list`, the caller's own changes
   * (filterable by `record`), and `changes_undo`, which undoes one (a write: the write scope,
   * and a confirmation). Default off.
   */
  changes?: boolean;
}
