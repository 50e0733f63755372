/**
 * The parts of the messages `POST /chat` receives, checked before anything reads them, stores
 * them or hands them to the AI SDK: each part is an object of a known type with the fields that
 * type needs (a `null` part or a text part without `text` was a TypeError, a 500), and a file
 * names where its bytes are.
 *
 * Files are taken inline (`data:` URLs) only: left to itself, the AI SDK downloads any URL a
 * model cannot take, and its guard reads the host name as text, so a name that resolves to an
 * internal address reached it (SSRF, issue 33.1). A file's URL is checked wherever the SDK
 * would look for one: user messages, assistant messages, and the user messages a steering part
 * carries. A provider file reference is refused too: this app uploads nothing to a provider, so
 * a reference could only name someone else's upload.
 */
import type { PlainObject } from "../core/types.js";

/** How file URLs are judged: `remote` also takes http(s) URLs (fetched through the fence). */
export interface FileUrlPolicy {
  remote: boolean;
}

/** Part types the chat reads (the AI SDK 7 UI message parts), by what each must carry. */
const TEXT_TYPES = new Set(["text", "reasoning"]);
const FILE_TYPES = new Set(["file", "reasoning-file"]);
const OTHER_TYPES = new Set(["step-start", "source-url", "source-document", "custom"]);

const isPlainObject = (value: unknown): value is PlainObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Why a file URL is refused, or undefined when it is taken. */
function fileUrlProblem(url: string, policy: FileUrlPolicy): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "`url` is not a URL";
  }
  if (parsed.protocol === "data:") return undefined;
  if (!policy.remote) {
    return "files are taken only inline (a data: URL); this server does not fetch remote URLs";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return "a file's URL must be a data: URL or an http(s) URL";
  }
  if (parsed.username || parsed.password) return "a file's URL may not carry credentials";
  return undefined;
}

function fileProblem(part: PlainObject, policy: FileUrlPolicy): string | undefined {
  if (typeof part.url !== "string") return "`url` must be a string";
  if (typeof part.mediaType !== "string" || part.mediaType.length === 0) {
    return "`mediaType` must be a media type such as image/png";
  }
  if (part.providerReference !== undefined) {
    return "provider file references are not accepted; send the file inline";
  }
  return fileUrlProblem(part.url, policy);
}

function toolProblem(part: PlainObject): string | undefined {
  if (typeof part.toolCallId !== "string") return "`toolCallId` must be a string";
  if (typeof part.state !== "string") return "`state` must be a string";
  if (part.type === "dynamic-tool" && typeof part.toolName !== "string") {
    return "`toolName` must be a string";
  }
  return undefined;
}

/**
 * Adds `field: problem` to `problems` for every malformed part of `parts` (and of the parts a
 * steering part carries, which may only be text and files).
 */
function checkParts(
  parts: unknown[],
  path: string,
  policy: FileUrlPolicy,
  problems: Record<string, string>,
  nested = false,
): void {
  parts.forEach((part, index) => {
    const field = `${path}.${index}`;
    const problem = partProblem(part, policy, nested);
    if (problem) problems[field] = problem;
    else if (isPlainObject(part) && part.type === "steering-message") {
      checkParts(part.parts as unknown[], `${field}.parts`, policy, problems, true);
    }
  });
}

function partProblem(part: unknown, policy: FileUrlPolicy, nested: boolean): string | undefined {
  if (!isPlainObject(part) || typeof part.type !== "string") {
    return "a part must be an object with a string `type`";
  }
  const type = part.type;
  if (nested && type !== "text" && type !== "file") {
    return "a steering message's parts may only be text and files";
  }
  if (TEXT_TYPES.has(type)) {
    return typeof part.text === "string" ? undefined : "`text` must be a string";
  }
  if (FILE_TYPES.has(type)) return fileProblem(part, policy);
  if (type === "steering-message") {
    return Array.isArray(part.parts) ? undefined : "`parts` must be an array";
  }
  if (type === "dynamic-tool" || type.startsWith("tool-")) return toolProblem(part);
  if (type.startsWith("data-") || OTHER_TYPES.has(type)) return undefined;
  return `unknown part type "${type.slice(0, 50)}"`;
}

/**
 * `field: problem` for every malformed part of `messages` (each already `{role, parts: [...]}`),
 * fields named `messages.<i>.parts.<j>`; empty when every part is well formed.
 */
export function partProblems(
  messages: ReadonlyArray<{ parts: unknown[] }>,
  policy: FileUrlPolicy,
): Record<string, string> {
  const problems: Record<string, string> = {};
  messages.forEach((message, index) => {
    checkParts(message.parts, `messages.${index}.parts`, policy, problems);
  });
  return problems;
}
