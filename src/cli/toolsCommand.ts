/**
 * `terreno-mcp tools <module>`: the tool catalog a given caller sees, with each tool's title,
 * annotations, input fields and o200k token cost (`JSON.stringify({name, description,
 * inputSchema})`, as the bench counts it), ending with the catalog's total.
 */
import type { TerrenoApp } from "../app/TerrenoApp.js";
import { toUser } from "../auth/userPlugin.js";
import type { User } from "../core/types.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { toolsVisibleTo } from "../tools/visibleTools.js";

export interface ToolsCommandOptions {
  /** Look this user up by email in the app's userModel. */
  user?: string;
  /** A signed-in admin with no account (no database needed). */
  admin?: boolean;
  /** No user at all. */
  anonymous?: boolean;
  json?: boolean;
  verbose?: boolean;
}

/** Placeholder id of the callers the CLI makes up (no document has it). */
const NOBODY_ID = "000000000000000000000000";

type Encode = (text: string) => number[];

/**
 * gpt-tokenizer is optional for the CLI (a devDependency of this package): without it the
 * catalog is printed with no token counts, rather than making every install carry its ranks.
 */
async function loadEncoder(): Promise<Encode | undefined> {
  try {
    const mod = (await import("gpt-tokenizer/encoding/o200k_base")) as { encode: Encode };
    return mod.encode;
  } catch {
    return undefined;
  }
}

interface Caller {
  user?: User;
  label: string;
  /** Closes the connection the CLI opened for `--user`, once the permission checks are done. */
  release(): Promise<void>;
}

const nothingToRelease = async () => undefined;

async function callerFor(app: TerrenoApp, options: ToolsCommandOptions): Promise<Caller> {
  if (options.anonymous) return { label: "an anonymous caller", release: nothingToRelease };
  if (options.admin) {
    const user = { id: NOBODY_ID, admin: true };
    return { user, label: "a signed-in admin", release: nothingToRelease };
  }
  if (!options.user) {
    const user = { id: NOBODY_ID, admin: false };
    return { user, label: "a signed-in user who is not an admin", release: nothingToRelease };
  }
  const model = app.options.userModel;
  if (!model) throw new Error("--user needs the app's userModel (TerrenoApp({userModel})).");
  const connection = model.db;
  let opened = false;
  if (connection.readyState !== 1) {
    const uri = process.env.MONGODB_URI;
    if (!uri) {
      throw new Error("--user needs a database: set MONGODB_URI (the module did not connect).");
    }
    await connection.openUri(uri, { serverSelectionTimeoutMS: 5000 });
    opened = true;
  }
  // Permissions that read the database run after the lookup, so the connection stays open
  // until the caller releases it; only one the CLI opened itself is closed.
  const release = opened ? () => connection.close() : nothingToRelease;
  try {
    const doc = await model.findOne({ email: options.user.toLowerCase() }).exec();
    if (!doc) throw new Error(`No user with email ${options.user}.`);
    return { user: toUser(doc), label: options.user, release };
  } catch (error) {
    await release();
    throw error;
  }
}

function inputFields(tool: ToolDefinition): string[] {
  const { properties = {}, required = [] } = tool.inputSchema;
  return Object.keys(properties).map((name) => (required.includes(name) ? `${name}*` : name));
}

function hints(tool: ToolDefinition): string {
  const { title: _title, ...rest } = tool.annotations;
  return Object.entries(rest)
    .filter(([, value]) => value === true)
    .map(([key]) => key.replace(/Hint$/, ""))
    .join(", ");
}

interface ToolReport {
  name: string;
  title: string;
  annotations: ToolDefinition["annotations"];
  inputFields: string[];
  tokens?: number;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
}

export async function toolsCommand(
  app: TerrenoApp,
  options: ToolsCommandOptions,
  print: (line: string) => void = console.log,
): Promise<void> {
  const { user, label, release } = await callerFor(app, options);
  let tools: readonly ToolDefinition[];
  try {
    tools = await toolsVisibleTo(app.toolDefinitions, user);
  } finally {
    await release();
  }
  const encode = await loadEncoder();
  const reports: ToolReport[] = tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    annotations: tool.annotations,
    inputFields: inputFields(tool),
    ...(encode
      ? {
          tokens: encode(
            JSON.stringify({
              name: tool.name,
              description: tool.description,
              inputSchema: tool.inputSchema,
            }),
          ).length,
        }
      : {}),
    ...(options.verbose
      ? {
          description: tool.description,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema,
        }
      : {}),
  }));
  const total = encode ? reports.reduce((sum, r) => sum + (r.tokens ?? 0), 0) : undefined;
  if (options.json) {
    print(JSON.stringify({ caller: label, tools: reports, totalTokens: total ?? null }, null, 2));
    return;
  }
  print(`${reports.length} tools for ${label}:`);
  for (const report of reports) {
    const cost = report.tokens === undefined ? "" : `  ${report.tokens} tokens`;
    print(`\n${report.name}  "${report.title}"${cost}`);
    const flags = hints(tools.find((t) => t.name === report.name) as ToolDefinition);
    if (flags) print(`  annotations: ${flags}`);
    print(`  input: ${report.inputFields.join(", ") || "(none)"}`);
    if (options.verbose) {
      print(`  description: ${report.description}`);
      print(`  inputSchema: ${JSON.stringify(report.inputSchema)}`);
      print(`  outputSchema: ${JSON.stringify(report.outputSchema)}`);
    }
  }
  print(
    total === undefined
      ? "\nTotal: token counts need gpt-tokenizer (npm i -D gpt-tokenizer)."
      : `\nTotal: ${total} o200k tokens for ${reports.length} tools (name + description + inputSchema).`,
  );
}
