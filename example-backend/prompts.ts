/**
 * The example's prompts (`app.prompt`), offered by MCP clients (`prompts/list`) and the chat:
 * `review_todo` reviews one of the caller's todos, its `todo` argument completed from the
 * caller's own todo titles (and nobody else's: the list runs as the caller), and
 * `plan_my_day` plans the day from the caller's open todos.
 */
import { z } from "zod";
import { type PromptContext, type TerrenoApp, TerrenoError } from "../src/index.js";

const OBJECT_ID = /^[0-9a-f]{24}$/i;

/** The caller's todo named by `todo`: a title (exact), else an id; `not_found` otherwise. */
async function findTodo(ctx: PromptContext, todo: string): Promise<Record<string, unknown>> {
  const byTitle = await ctx.records.list("Todo", { filter: { title: todo }, limit: 1 });
  const found = byTitle.data[0];
  if (found) return found as Record<string, unknown>;
  if (OBJECT_ID.test(todo))
    return (await ctx.records.read("Todo", todo)) as Record<string, unknown>;
  throw new TerrenoError("not_found", `You have no todo titled "${todo}".`);
}

export function registerExamplePrompts(app: TerrenoApp): TerrenoApp {
  return app
    .prompt("review_todo", {
      title: "Review a todo",
      description: "Reviews one of your todos: is it clear and actionable, and what comes next.",
      arguments: {
        todo: z.string().min(1).max(200).describe("The todo's title (or its id)."),
      },
      complete: { todo: { model: "Todo", field: "title" } },
      messages: async ({ todo }, ctx) => {
        const record = await findTodo(ctx, todo);
        return [
          {
            role: "user",
            content:
              `Review my todo "${String(record.title)}". Is it clear and actionable? ` +
              "Suggest a better title if it helps, a first small step, and whether its due date " +
              `and priority fit.\n\nThe todo, as JSON:\n${JSON.stringify(record)}`,
          },
        ];
      },
    })
    .prompt("plan_my_day", {
      title: "Plan my day",
      description: "Plans your day from your open todos, most urgent first.",
      messages: async (_args, ctx) => {
        const open = await ctx.records.list("Todo", {
          filter: { completed: false },
          sort: "dueDate",
          limit: 20,
        });
        const lines = open.data.map((item) => {
          const todo = item as Record<string, unknown>;
          const due = todo.dueDate ? ` (due ${String(todo.dueDate)})` : "";
          const priority = todo.priority ? ` [priority ${String(todo.priority)}]` : "";
          return `- ${String(todo.title)}${due}${priority}`;
        });
        return [
          {
            role: "user",
            content:
              lines.length === 0
                ? "I have no open todos. Help me decide what is worth doing today."
                : `Plan my day from my open todos, most urgent first, with a time for each:\n${lines.join("\n")}`,
          },
        ];
      },
    });
}
