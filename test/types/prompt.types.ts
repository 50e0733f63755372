/**
 * Compile-time tests of `app.prompt()`: `messages` receives the parsed arguments typed from
 * their zod schemas, `complete` names only declared arguments, and arguments are strings.
 * Checked by `npm run typecheck`, never run.
 */
import { z } from "zod";
import { TerrenoApp } from "../../src/index.js";

const app = new TerrenoApp();

app.prompt("typed_args", {
  description: "Arguments are typed from their schemas.",
  arguments: { todo: z.string(), tone: z.enum(["formal", "funny"]).optional() },
  complete: { todo: { model: "Todo", field: "title" } },
  messages: ({ todo, tone }) => {
    const title: string = todo;
    const how: "formal" | "funny" | undefined = tone;
    return [{ role: "user", content: `${title} ${how ?? ""}` }];
  },
});

app.prompt("async_records", {
  description: "Messages may read the caller's records.",
  messages: async (_args, ctx) => {
    const page = await ctx.records.list("Todo", { limit: 5 });
    return [{ role: "assistant", content: String(page.total) }];
  },
});

app.prompt("unknown_completion", {
  description: "Completes an argument it does not declare.",
  arguments: { todo: z.string() },
  // @ts-expect-error: `other` is not an argument
  complete: { other: { model: "Todo" } },
  messages: () => [],
});

app.prompt("number_argument", {
  description: "MCP prompt arguments are strings.",
  // @ts-expect-error: an argument's schema must accept a string
  arguments: { count: z.number() },
  messages: () => [],
});

app.prompt("bad_role", {
  description: "A message is from the user or the assistant.",
  // @ts-expect-error: no such role
  messages: () => [{ role: "system", content: "x" }],
});
