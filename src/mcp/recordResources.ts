/**
 * Records as MCP resources: every model whose tools include `read` has the template
 * `terreno://{prefix}/{id}`. Reads and lists run the model's own read and list tools through
 * the one tool-call runner (verdict, rate limit, view, hidden fields, trace), so a resource
 * says exactly what the tool says, and what the caller may not read answers as missing.
 * Built once; nothing here is rebuilt per request.
 */
import type { Resource as McpResource, ReadResourceResult } from "@modelcontextprotocol/server";
import type { Resource } from "../core/resource.js";
import type { PlainObject } from "../core/types.js";
import { runToolCall, type ToolRunnerOptions } from "../tools/runToolCall.js";
import type { CrudToolDefinition, ToolDefinition } from "../tools/toolDefinitions.js";
import { canSeeTool, createToolCatalog } from "../tools/visibleTools.js";
import type { McpCaller } from "./caller.js";
import { completeRecordId } from "./completions.js";
import {
  type Completion,
  type McpResourceProvider,
  resourceNotFound,
} from "./resourceProviders.js";
import { protocolError } from "./toolResult.js";

export interface RecordResourceOptions {
  /** The URI scheme of record resources: `terreno://todos/<id>`. Default `terreno`. */
  scheme?: string;
  /** How many of the caller's most recent records `resources/list` lists per model. Default 20. */
  listLimit?: number;
}

const RECORD_MIME_TYPE = "application/json";

/** One model's template, with the tools that serve it. */
export interface RecordTemplate {
  resource: Resource;
  prefix: string;
  uriTemplate: string;
  read: CrudToolDefinition;
  list?: CrudToolDefinition;
  /** The field that names a record, when the tools see one (`mcp.titleField`, or guessed). */
  titleField?: string;
}

const TITLE_FIELDS = ["title", "name", "label", "subject"];
const SCHEME = /^[a-z][a-z0-9+.-]*$/;

export function titleFieldOf(resource: Resource): string | undefined {
  const configured = resource.options.mcp?.titleField as string | undefined;
  const { hidden } = resource.views.tools;
  const candidates = configured ? [configured] : TITLE_FIELDS;
  return candidates.find(
    (path) => resource.description.byPath.get(path)?.kind === "string" && !hidden.isHidden(path),
  );
}

/** The record templates of these tools, one per model with a read tool. */
export function recordTemplates(
  tools: readonly ToolDefinition[],
  scheme: string,
): RecordTemplate[] {
  if (!SCHEME.test(scheme)) {
    throw new Error(`terreno-mcp: mcp.resources.scheme "${scheme}" must match ${SCHEME}.`);
  }
  const crud = tools.filter((tool): tool is CrudToolDefinition => tool.kind === "crud");
  return crud
    .filter((tool) => tool.method === "read")
    .map((read) => {
      const { resource } = read;
      const prefix = resource.toolPrefix;
      const list = crud.find((tool) => tool.resource === resource && tool.method === "list");
      const titleField = titleFieldOf(resource);
      return {
        resource,
        prefix,
        uriTemplate: `${scheme}://${prefix}/{id}`,
        read,
        ...(list ? { list } : {}),
        ...(titleField ? { titleField } : {}),
      };
    });
}

function recordUri(template: RecordTemplate, id: string): string {
  return template.uriTemplate.replace("{id}", encodeURIComponent(id));
}

/** The wire shape of one record, as `resources/list` and `resource_link` name it. */
export function recordEntry(template: RecordTemplate, record: unknown): McpResource | undefined {
  const id = (record as PlainObject | null)?.id;
  if (typeof id !== "string") return undefined;
  const title = template.titleField ? (record as PlainObject)[template.titleField] : undefined;
  return {
    uri: recordUri(template, id),
    name: typeof title === "string" && title.length > 0 ? title : id,
    title: `${template.resource.model.modelName} ${id}`,
    mimeType: RECORD_MIME_TYPE,
  };
}

/** Whether this caller sees every tool a listing needs: the read tool, and the list tool. */
async function canList(template: RecordTemplate, caller: McpCaller): Promise<boolean> {
  if (!template.list) return false;
  return (
    (await canSeeTool(template.read, caller.user, caller.workspace)) &&
    canSeeTool(template.list, caller.user, caller.workspace)
  );
}

function callOf(tool: ToolDefinition, caller: McpCaller, args: PlainObject, operation: string) {
  return {
    tool,
    name: tool.name,
    args,
    user: caller.user,
    headers: caller.headers,
    operation,
    ...(caller.ip ? { ip: caller.ip } : {}),
    ...(caller.failure ? { failure: caller.failure } : {}),
  };
}

export function recordResourceProvider(
  templates: readonly RecordTemplate[],
  runner: ToolRunnerOptions,
  options: { scheme: string; listLimit: number },
): McpResourceProvider {
  const byPrefix = new Map(templates.map((template) => [template.prefix, template]));
  const byUriTemplate = new Map(templates.map((template) => [template.uriTemplate, template]));
  const schemePrefix = `${options.scheme}://`;
  // The templates a caller sees, built once per distinct set of visible read tools.
  const templatesFor = createToolCatalog(
    templates.map((template) => ({ access: template.read.access, template })),
    (visible) =>
      visible.map(({ template }) => ({
        uriTemplate: template.uriTemplate,
        name: template.prefix,
        title: `${template.resource.model.modelName} record`,
        description: `One ${template.resource.model.modelName} you can read, by id, as JSON (what ${template.read.name} returns).`,
        mimeType: RECORD_MIME_TYPE,
      })),
  );

  function parse(uri: string): { template: RecordTemplate; id: string } | undefined {
    const match = /^([^/?#]+)\/([^/?#]+)$/.exec(uri.slice(schemePrefix.length));
    const template = match ? byPrefix.get(match[1]) : undefined;
    if (!match || !template) return undefined;
    try {
      return { template, id: decodeURIComponent(match[2]) };
    } catch {
      return undefined;
    }
  }

  async function read(uri: string, caller: McpCaller): Promise<ReadResourceResult> {
    const target = parse(uri);
    if (!target) throw resourceNotFound(uri);
    const { template, id } = target;
    const outcome = await runToolCall(
      runner,
      callOf(template.read, caller, { id }, "resources/read"),
    );
    if (outcome.status === "done") {
      return {
        contents: [{ uri, mimeType: RECORD_MIME_TYPE, text: JSON.stringify(outcome.output.data) }],
      };
    }
    // A model the caller may not read, a record it may not read, a malformed or missing id:
    // one answer.
    if (outcome.status === "unseen" || outcome.error.code === "not_found") {
      throw resourceNotFound(uri);
    }
    throw protocolError(outcome.error);
  }

  async function listed(caller: McpCaller): Promise<RecordTemplate[]> {
    const verdicts = await Promise.all(templates.map((template) => canList(template, caller)));
    return templates.filter((_, i) => verdicts[i]);
  }

  return {
    owns: (uri) => uri.startsWith(schemePrefix),
    read,
    templates: (caller) => templatesFor(caller.user, caller.workspace),
    async list(caller, cursor) {
      const visible = await listed(caller);
      const index = cursor === undefined ? 0 : visible.findIndex((t) => t.prefix === cursor);
      const template = visible[index];
      if (!template?.list) return { resources: [] };
      const view = template.resource.views.tools;
      const args: PlainObject = {
        limit: Math.min(options.listLimit, view.maxLimit),
        ...(view.sortable.includes("id") ? { sort: "-id" } : {}),
      };
      const outcome = await runToolCall(
        runner,
        callOf(template.list, caller, args, "resources/list"),
      );
      if (outcome.status === "failed") {
        throw protocolError(outcome.error);
      }
      const records = outcome.status === "done" ? (outcome.output.data as unknown[]) : [];
      const next = visible[index + 1];
      return {
        resources: records.flatMap((record) => recordEntry(template, record) ?? []),
        ...(next ? { nextCursor: next.prefix } : {}),
      };
    },
    async complete(uriTemplate, argument, caller) {
      const template = byUriTemplate.get(uriTemplate);
      if (!template) return undefined;
      const listTool = template.list;
      // The list tool is judged by the runner below (once); the read tool here, as canList does.
      if (
        argument.name !== "id" ||
        !listTool ||
        !(await canSeeTool(template.read, caller.user, caller.workspace))
      ) {
        return { values: [], total: 0, hasMore: false };
      }
      // A completion reads the caller's records as the list tool does: an internal call of
      // it through the runner (the same verdict, context, rate-limit spend, views and trace).
      const outcome = await runToolCall(runner, {
        ...callOf(listTool, caller, {}, "completion/complete"),
        run: async (ctx) => ({
          completion: await completeRecordId(
            template.resource,
            template.titleField,
            argument.value,
            ctx,
          ),
        }),
      });
      if (outcome.status === "done") return outcome.output.completion as Completion;
      if (outcome.status === "unseen") return { values: [], total: 0, hasMore: false };
      throw protocolError(outcome.error);
    },
  };
}
