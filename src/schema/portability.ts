/**
 * Checks a tool schema against the rules every MCP client and model provider accepts
 * (see "Tool schemas that every client accepts" in the stack notes). Used by tests.
 */

const ALLOWED_FORMATS = new Set(["date-time", "date", "email", "uuid"]);
const BANNED_KEYWORDS = ["$ref", "$defs", "definitions", "const"];
const ROOT_COMBINATORS = ["anyOf", "oneOf", "allOf"];

export interface PortabilityOptions {
  /**
   * Also require `additionalProperties: false` on every object that declares `properties`
   * (true for input schemas; output schemas are deliberately open). An explicit `true` is a
   * stated opening, not an oversight: a ref's object form, whose other keys are ignored.
   */
  closedObjects?: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function walk(node: unknown, at: string, options: PortabilityOptions, problems: string[]): void {
  if (!isRecord(node)) {
    problems.push(`${at}: is not a schema object`);
    return;
  }
  for (const keyword of BANNED_KEYWORDS) {
    if (keyword in node) problems.push(`${at}: uses ${keyword}`);
  }
  if (Array.isArray(node.type)) problems.push(`${at}: has a type array`);
  if (node.format !== undefined && !ALLOWED_FORMATS.has(String(node.format))) {
    problems.push(`${at}: uses format ${String(node.format)}`);
  }
  if (
    options.closedObjects &&
    node.type === "object" &&
    node.properties !== undefined &&
    node.additionalProperties !== false &&
    node.additionalProperties !== true
  ) {
    problems.push(`${at}: object without additionalProperties: false`);
  }
  if (isRecord(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      walk(child, `${at}.properties.${name}`, options, problems);
    }
  }
  if (node.items !== undefined) walk(node.items, `${at}.items`, options, problems);
  if (isRecord(node.additionalProperties)) {
    walk(node.additionalProperties, `${at}.additionalProperties`, options, problems);
  }
  for (const combinator of ROOT_COMBINATORS) {
    const branches = node[combinator];
    if (Array.isArray(branches)) {
      branches.forEach((branch, index) => {
        walk(branch, `${at}.${combinator}[${index}]`, options, problems);
      });
    }
  }
}

/** Every rule the schema breaks, as `path: problem` lines; empty when portable. */
export function portabilityProblems(schema: unknown, options: PortabilityOptions = {}): string[] {
  const problems: string[] = [];
  if (!isRecord(schema) || schema.type !== "object") {
    problems.push('(root): type must be "object"');
  }
  if (isRecord(schema)) {
    for (const combinator of ROOT_COMBINATORS) {
      if (combinator in schema) problems.push(`(root): uses ${combinator}`);
    }
  }
  walk(schema, "(root)", options, problems);
  return problems;
}

/** Throws with every problem listed when the schema is not portable. */
export function assertPortable(schema: unknown, options: PortabilityOptions = {}): void {
  const problems = portabilityProblems(schema, options);
  if (problems.length > 0) {
    throw new Error(`Schema is not portable:\n${problems.join("\n")}`);
  }
}
