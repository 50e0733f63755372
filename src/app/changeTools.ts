/**
 * The change tools (`mcp: {changes: true}` with `changes` on, docs/safe-writes.md): an agent
 * sees and undoes its own changes. `changes_list` is GET /changes and `changes_undo` is
 * POST /changes/:id/undo, over the same functions (changeList.ts, changeUndo.ts), as custom
 * tools: the same verdict (undo is a write: the write scope), confirmation, rate limits,
 * telemetry and error table as every tool. Hidden values never leave (`served`).
 */
import { z } from "zod";
import type { CustomToolConfig } from "../core/actionTypes.js";
import { listChanges } from "../ops/changeList.js";
import type { ChangeLog } from "../ops/changeLog.js";
import { undoChange } from "../ops/changeUndo.js";
import { customToolDefinition } from "../tools/actionTools.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";

const MAX_LIMIT = 100;

const CHANGE = z.object({
  id: z.string(),
  timestamp: z.string(),
  userId: z.string().optional(),
  tokenId: z.string().optional(),
  authMethod: z.string().optional(),
  workspaceId: z.string().optional(),
  surface: z.string(),
  operation: z.string(),
  action: z.string(),
  model: z.string(),
  record: z.string(),
  version: z.number().optional(),
  changes: z.array(
    z.object({
      path: z.string(),
      // As JSON text: a value may be any JSON, and a schema that says so portably (typed at
      // every depth, no $ref) does not exist, while an open `{}` is refused by schema linters.
      before: z.string().optional().describe("The value before, as JSON."),
      after: z.string().optional().describe("The value after, as JSON."),
      hidden: z.boolean().optional(),
    }),
  ),
});

/** A custom tool's definition, its handler typed from its schemas (as `app.tool()` does). */
function tool<I extends z.ZodType, O extends z.ZodType>(
  name: string,
  config: CustomToolConfig<I, O>,
): ToolDefinition {
  return customToolDefinition(name, config as unknown as CustomToolConfig);
}

/** A served change with each path's values as JSON text (CHANGE's `before` and `after`). */
function asJsonText(change: unknown): z.input<typeof CHANGE> {
  const served = change as z.input<typeof CHANGE> & {
    changes: Array<{ path: string; before?: unknown; after?: unknown; hidden?: boolean }>;
  };
  const json = (value: unknown) => (value === undefined ? undefined : JSON.stringify(value));
  return {
    ...served,
    changes: served.changes.map(({ before, after, ...entry }) => {
      const was = json(before);
      const now = json(after);
      return {
        ...entry,
        ...(was !== undefined ? { before: was } : {}),
        ...(now !== undefined ? { after: now } : {}),
      };
    }),
  };
}

/** `changes_list` and `changes_undo` over `log`. */
export function changeTools(log: ChangeLog): ToolDefinition[] {
  const list = tool("changes_list", {
    description:
      "Your changes to records, newest first: each with its paths' values before and after. Undo one with changes_undo.",
    input: z.object({
      record: z.string().max(100).optional().describe("Only the changes of this record's id."),
      limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe("Default 20."),
      offset: z.number().int().min(0).optional(),
    }),
    output: z.object({ changes: z.array(CHANGE), limit: z.number(), offset: z.number() }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (ctx, input) => {
      const { record, limit = 20, offset = 0 } = input;
      const page = await listChanges(log, ctx, {
        ...(record !== undefined ? { record } : {}),
        limit,
        offset,
      });
      return { changes: page.data.map(asJsonText), limit, offset };
    },
  });
  const undo = tool("changes_undo", {
    description:
      "Undoes one of your changes (an id from changes_list): an update's old values come back, a create is deleted, a delete restored. Fails with conflict if the record changed since.",
    input: z.object({ id: z.string().max(100).describe("The change's id.") }),
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handler: async (ctx, input) => undoChange(log, ctx, input.id),
  });
  return [list, { ...undo, confirm: "Undo this change?" }];
}
