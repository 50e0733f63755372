/**
 * A view's tool call (`POST /chat/app-calls`) is checked against the tool's input schema before
 * it runs or is put to the person, and a misfit is a 400 naming the argument. The model's calls
 * are checked by the AI SDK; a view's came straight to `execute`, so `{"query": {"$ne": 1}}`
 * reached MiniSearch and failed there as a 500 (issue 33.9).
 *
 * An app tool is checked by its definition's own validator (the one /mcp uses), or its advertised
 * JSON Schema compiled once; another tool (`search_docs`) by its AI SDK schema's validator, or
 * its JSON Schema when it has none.
 */
import { asSchema, type JSONSchema7, type Tool } from "ai";
import { type FieldErrors, validationFailed } from "../core/errors.js";
import type { PlainObject } from "../core/types.js";
import type { JsonSchema } from "../schema/types.js";
import { compileValidator, ROOT_KEY, type Validator } from "../schema/validator.js";
import type { ToolDefinition } from "../tools/toolDefinitions.js";

/** Validators compiled from JSON Schemas, once per schema object. */
const compiled = new WeakMap<object, Validator>();

function validatorOf(schema: JsonSchema | JSONSchema7): Validator {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = compileValidator(schema as JsonSchema);
    compiled.set(schema, validator);
  }
  return validator;
}

/** The validator's fields under `arguments` (its root is `arguments` itself). */
function argumentFields(fields: Record<string, string>): FieldErrors {
  return Object.fromEntries(
    Object.entries(fields).map(([key, problem]) => [
      key === ROOT_KEY ? "arguments" : `arguments.${key}`,
      problem,
    ]),
  );
}

const invalid = (name: string, fields: FieldErrors) =>
  validationFailed(`The arguments do not fit ${name}'s input schema.`, fields);

/** `input` as the tool takes it; throws a 400 naming the arguments that do not fit. */
export async function checkAppCallInput(
  name: string,
  tool: Tool,
  definition: ToolDefinition | undefined,
  input: unknown,
): Promise<PlainObject> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw invalid(name, { arguments: "must be an object" });
  }
  if (definition) {
    const checked = (definition.validate ?? validatorOf(definition.inputSchema))(input);
    if (!checked.ok) throw invalid(name, argumentFields(checked.fields));
    return input as PlainObject;
  }
  const schema = asSchema(tool.inputSchema);
  if (schema.validate) {
    const checked = await schema.validate(input);
    if (!checked.success) throw invalid(name, { arguments: checked.error.message });
    return checked.value as PlainObject;
  }
  const checked = validatorOf(await schema.jsonSchema)(input);
  if (!checked.ok) throw invalid(name, argumentFields(checked.fields));
  return input as PlainObject;
}
