/**
 * Tool results link the records they return (`resource_link` content items), so a client can
 * attach one as context or read it again without another tool call. Only records the caller
 * may read are linked: a model's CRUD and instance-action tools, when the caller sees its
 * read tool.
 */
import type { CallToolResult, ResourceLink } from "@modelcontextprotocol/server";
import type { Resource } from "../core/resource.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";
import { kindOf, toolResource } from "../tools/toolKinds.js";
import { canSeeTool } from "../tools/visibleTools.js";
import type { McpCaller } from "./caller.js";
import { type RecordTemplate, recordEntry } from "./recordResources.js";

/** A list result links at most this many records (a page is at most the model's maxLimit). */
const MAX_LINKS = 100;

/** Adds the links of `output`'s records to `result`, for tools that return a model's records. */
export function createResourceLinker(templates: readonly RecordTemplate[]) {
  const byResource = new Map<Resource, RecordTemplate>(
    templates.map((template) => [template.resource, template]),
  );
  return async (
    tool: ToolDefinition | undefined,
    caller: McpCaller,
    result: CallToolResult,
  ): Promise<CallToolResult> => {
    if (!tool || !kindOf(tool).returnsRecords(tool)) return result;
    const resource = toolResource(tool);
    const template = resource ? byResource.get(resource) : undefined;
    if (!template) return result;
    if (!(await canSeeTool(template.read, caller.user, caller.workspace))) return result;
    const data = (result.structuredContent as { data?: unknown } | undefined)?.data;
    const records = Array.isArray(data) ? data.slice(0, MAX_LINKS) : [data];
    const links: ResourceLink[] = records.flatMap((record) => {
      const entry = recordEntry(template, record);
      return entry ? [{ type: "resource_link" as const, ...entry }] : [];
    });
    return links.length > 0 ? { ...result, content: [...result.content, ...links] } : result;
  };
}
