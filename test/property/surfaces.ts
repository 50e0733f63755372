/**
 * The three surfaces one generated model is reached through, as the property test calls
 * them: REST (supertest on the built app), MCP (a real SDK client over HTTP) and the AI SDK
 * tools of getMCPTools (executed as a chat loop would), each with the JSON Schemas it
 * advertises for create and update.
 */
import { asSchema, type ModelMessage, type ToolSet } from "ai";
import type { Express } from "express";
import request from "supertest";
import { getMCPTools } from "../../src/ai/index.js";
import type { TerrenoApp } from "../../src/app/TerrenoApp.js";
import type { User as Caller } from "../../src/core/types.js";
import type { JsonSchema } from "../../src/schema/types.js";
import { failureFromThrown } from "../contract/drivers/mcp.js";
import { connectClient, type McpTestClient, toolError } from "../helpers/mcpClients.js";
import type { JsonObject } from "./values.js";

export type Outcome =
  | { ok: true; data: JsonObject; raw: string }
  | {
      ok: false;
      status: number;
      code: string;
      raw: string;
      /** MCP only: a JSON-RPC error rather than an `isError` tool result. */
      protocolError?: boolean;
    };

export interface GenSurface {
  name: string;
  /** The schema of the create input, as this surface advertises it. */
  createSchema: JsonSchema;
  /** The schema of the update input (the tools' has `id` beside the fields). */
  updateSchema: JsonSchema;
  /** What an update sends, as the advertised update schema sees it. */
  updateInput(id: string, body: JsonObject): JsonObject;
  create(body: JsonObject): Promise<Outcome>;
  read(id: string): Promise<Outcome>;
  update(id: string, body: JsonObject): Promise<Outcome>;
  close(): Promise<void>;
}

interface ErrorBody {
  status?: number;
  code?: string;
}

function failure(error: ErrorBody | undefined, raw: string, status?: number): Outcome {
  return {
    ok: false,
    status: error?.status ?? status ?? Number.NaN,
    code: String(error?.code),
    raw,
  };
}

export function restSurface(
  app: TerrenoApp,
  express: Express,
  modelName: string,
  path: string,
  token: string,
): GenSurface {
  const resource = app.resources.find((candidate) => candidate.model.modelName === modelName);
  if (!resource) throw new Error(`no resource for ${modelName}`);
  const auth = { Authorization: `Bearer ${token}` };
  const outcome = (res: request.Response): Outcome =>
    res.status < 400
      ? { ok: true, data: res.body.data, raw: res.text }
      : failure(res.body?.error ?? res.body, res.text, res.status);
  return {
    name: "rest",
    createSchema: resource.views.rest.createSchema,
    updateSchema: resource.views.rest.updateSchema,
    updateInput: (_id, body) => body,
    create: async (body) => outcome(await request(express).post(path).set(auth).send(body)),
    read: async (id) => outcome(await request(express).get(`${path}/${id}`).set(auth)),
    update: async (id, body) =>
      outcome(await request(express).patch(`${path}/${id}`).set(auth).send(body)),
    close: async () => {},
  };
}

export async function mcpSurface(url: string, token: string, prefix: string): Promise<GenSurface> {
  const client: McpTestClient = await connectClient("v2-auto", url, token);
  const tools = await client.listTools();
  const schemaOf = (method: string) => {
    const tool = tools.find((candidate) => candidate.name === `${prefix}_${method}`);
    if (!tool) throw new Error(`${prefix}_${method} is not listed`);
    return tool.inputSchema as JsonSchema;
  };
  const call = async (name: string, args: JsonObject): Promise<Outcome> => {
    try {
      const result = await client.callTool(`${prefix}_${name}`, args);
      const raw = JSON.stringify(result);
      if (result.isError) return failure(toolError(result) as ErrorBody, raw);
      return { ok: true, data: result.structuredContent?.data as JsonObject, raw };
    } catch (error) {
      const thrown = failureFromThrown(error);
      return {
        ok: false,
        status: thrown.status,
        code: thrown.code,
        raw: thrown.raw,
        protocolError: true,
      };
    }
  };
  return {
    name: "mcp",
    createSchema: schemaOf("create"),
    updateSchema: schemaOf("update"),
    updateInput: (id, body) => ({ id, ...body }),
    create: (body) => call("create", body),
    read: (id) => call("read", { id }),
    update: (id, body) => call("update", { id, ...body }),
    close: () => client.close(),
  };
}

export async function aiSurface(
  app: TerrenoApp,
  user: Caller,
  prefix: string,
): Promise<GenSurface> {
  const tools: ToolSet = getMCPTools({ app, user });
  const schemaOf = async (method: string) => {
    const tool = tools[`${prefix}_${method}`];
    if (!tool) throw new Error(`${prefix}_${method} is not offered`);
    return (await asSchema(tool.inputSchema).jsonSchema) as JsonSchema;
  };
  const call = async (name: string, args: JsonObject): Promise<Outcome> => {
    const run = tools[`${prefix}_${name}`]?.execute;
    if (!run) throw new Error(`${prefix}_${name} has no execute`);
    const output = (await run(args, {
      toolCallId: "property",
      messages: [] as ModelMessage[],
      context: {},
    })) as { data?: JsonObject; error?: ErrorBody };
    const raw = JSON.stringify(output);
    return output.error
      ? failure(output.error, raw)
      : { ok: true, data: output.data as JsonObject, raw };
  };
  return {
    name: "ai",
    createSchema: await schemaOf("create"),
    updateSchema: await schemaOf("update"),
    updateInput: (id, body) => ({ id, ...body }),
    create: (body) => call("create", body),
    read: (id) => call("read", { id }),
    update: (id, body) => call("update", { id, ...body }),
    close: async () => {},
  };
}
