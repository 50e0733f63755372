/**
 * Compile-time tests of `app.tool()`: the handler's input is the parsed `input`, and what it
 * returns must be what `output` accepts. Checked by `npm run typecheck`, never run.
 */
import { z } from "zod";
import { TerrenoApp } from "../../src/index.js";

const app = new TerrenoApp();

app.tool("word_length", {
  description: "Counts the letters of a word.",
  input: z.object({ word: z.string() }),
  output: z.object({ length: z.number() }),
  handler: (_ctx, input) => ({ length: input.word.length }),
});

app.tool("word_length_async", {
  description: "The same, from a promise.",
  input: z.object({ word: z.string() }),
  output: z.object({ length: z.number() }),
  handler: async (_ctx, input) => ({ length: input.word.length }),
});

app.tool("wrong_shape", {
  description: "Returns a string where output wants a number.",
  output: z.object({ length: z.number() }),
  // @ts-expect-error: the result must match `output`
  handler: () => ({ length: "five" }),
});

app.tool("missing_field", {
  description: "Returns an object without output's required field.",
  output: z.object({ length: z.number(), word: z.string() }),
  // @ts-expect-error: `word` is missing from the result
  handler: async () => ({ length: 5 }),
});

app.tool("no_output", {
  description: "Without output any JSON result is fine.",
  handler: () => ({ anything: [1, "two"] }),
});

app.tool("typed_input", {
  description: "The input is the schema's parsed output.",
  input: z.object({ n: z.coerce.number() }),
  // @ts-expect-error: `n` is a number, not a string
  handler: (_ctx, input) => input.n.toUpperCase(),
});
