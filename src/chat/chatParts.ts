/**
 * The parts of the messages `POST /chat` receives, checked before anything reads them, stores
 * them or hands them to the AI SDK: each part is an object of a known type with the fields that
 * type needs (a `null` part or a text part without `text` was a TypeError, a 500), and a file
 * names where its bytes are.
 *
 * Files are taken inline (`data:` URLs) only, unless the plugin allows remote files
 * (`chatPlugin({remoteFiles})`, chatFiles.ts): left to itself, the AI SDK downloads any URL a
 * model cannot take, and its guard reads the host name as text, so a name that resolves to an
 * internal address reached it (SSRF, issue 33.1). A file's URL is checked wherever the SDK or a
 * provider would look for one: user messages, assistant messages, and the user messages a
 * steering part carries. Even with remote files allowed, only a user's own files (a user
 * message's, a steering message's) may be remote: those are the ones the chat fetches through
 * the fence; an assistant's file or a reasoning file would go to the provider as a URL. A
 * provider file reference is refused too: this app uploads nothing to a provider, so a reference
 * could only name someone else's upload.
 */
import type { PlainObject } from "../core/types.js";

/**
 * How file URLs are judged: `remoteProtocols` (from `chatPlugin({remoteFiles})`) are the schemes
 * a user's file may have besides `data:`; empty (the default), files are taken inline only.
 */
export interface FileUrlPolicy {
  remoteProtocols: readonly string[];
}

/** A user's file named by a remote URL, which the chat fetches through the fence. */
export interface RemoteFilePart {
  /** Where it is in the body: `messages.<i>.parts.<j>` (`.parts.<k>` inside a steering part). */
  field: string;
  url: URL;
  mediaType: string;
}

/** Part types the chat reads (the AI SDK 7 UI message parts), by what each must carry. */
const TEXT_TYPES = new Set(["text", "reasoning"]);
const FILE_TYPES = new Set(["file", "reasoning-file"]);
const OTHER_TYPES = new Set(["step-start", "source-url", "source-document", "custom"]);

const isPlainObject = (value: unknown): value is PlainObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Where a part is: its field, and whether a remote file may be there (a user's own file). */
interface Place {
  field: string;
  userFile: boolean;
  nested: boolean;
}

/** What the walk found: problems by field, and the remote files of well-formed parts. */
interface Findings {
  problems: Record<string, string>;
  remote: RemoteFilePart[];
}

const INLINE_ONLY =
  "files are taken only inline (a data: URL); this server does not fetch remote URLs";

/** Why a file URL is refused, or undefined when it is taken (a remote one is noted). */
function fileUrlProblem(
  part: { url: string; mediaType: string },
  place: Place,
  policy: FileUrlPolicy,
  found: Findings,
): string | undefined {
  let url: URL;
  try {
    url = new URL(part.url);
  } catch {
    return "`url` is not a URL";
  }
  if (url.protocol === "data:") return undefined;
  if (policy.remoteProtocols.length === 0) return INLINE_ONLY;
  if (!place.userFile) return "only a user's own files may be remote; this one must be inline";
  if (!policy.remoteProtocols.includes(url.protocol)) {
    return `a file's URL must be a data: URL or use ${policy.remoteProtocols.join(" or ")}`;
  }
  if (url.username || url.password) return "a file's URL may not carry credentials";
  found.remote.push({ field: place.field, url, mediaType: part.mediaType });
  return undefined;
}

function fileProblem(
  part: PlainObject,
  place: Place,
  policy: FileUrlPolicy,
  found: Findings,
): string | undefined {
  if (typeof part.url !== "string") return "`url` must be a string";
  if (typeof part.mediaType !== "string" || part.mediaType.length === 0) {
    return "`mediaType` must be a media type such as image/png";
  }
  if (part.providerReference !== undefined) {
    return "provider file references are not accepted; send the file inline";
  }
  const userFile = place.userFile && part.type === "file";
  return fileUrlProblem(
    { url: part.url, mediaType: part.mediaType },
    { ...place, userFile },
    policy,
    found,
  );
}

function toolProblem(part: PlainObject): string | undefined {
  if (typeof part.toolCallId !== "string") return "`toolCallId` must be a string";
  if (typeof part.state !== "string") return "`state` must be a string";
  if (part.type === "dynamic-tool" && typeof part.toolName !== "string") {
    return "`toolName` must be a string";
  }
  return undefined;
}

function partProblem(
  part: unknown,
  place: Place,
  policy: FileUrlPolicy,
  found: Findings,
): string | undefined {
  if (!isPlainObject(part) || typeof part.type !== "string") {
    return "a part must be an object with a string `type`";
  }
  const type = part.type;
  if (place.nested && type !== "text" && type !== "file") {
    return "a steering message's parts may only be text and files";
  }
  if (TEXT_TYPES.has(type)) {
    return typeof part.text === "string" ? undefined : "`text` must be a string";
  }
  if (FILE_TYPES.has(type)) return fileProblem(part, place, policy, found);
  if (type === "steering-message") {
    return Array.isArray(part.parts) ? undefined : "`parts` must be an array";
  }
  if (type === "dynamic-tool" || type.startsWith("tool-")) return toolProblem(part);
  if (type.startsWith("data-") || OTHER_TYPES.has(type)) return undefined;
  return `unknown part type "${type.slice(0, 50)}"`;
}

/**
 * Walks `parts` (and the parts a steering part carries, which may only be text and files: the
 * user's words sent while the assistant answered).
 */
function walkParts(
  parts: unknown[],
  path: string,
  userMessage: boolean,
  policy: FileUrlPolicy,
  found: Findings,
  nested = false,
): void {
  parts.forEach((part, index) => {
    const field = `${path}.${index}`;
    const place = { field, userFile: userMessage || nested, nested };
    const problem = partProblem(part, place, policy, found);
    if (problem) found.problems[field] = problem;
    else if (isPlainObject(part) && part.type === "steering-message") {
      walkParts(part.parts as unknown[], `${field}.parts`, false, policy, found, true);
    }
  });
}

/**
 * Every malformed part of `messages` (each already `{role, parts: [...]}`), as `field: problem`
 * with fields named `messages.<i>.parts.<j>` (empty when all are well formed), and the remote
 * files the well-formed ones name.
 */
export function checkMessageParts(
  messages: ReadonlyArray<{ role: unknown; parts: unknown[] }>,
  policy: FileUrlPolicy,
): Findings {
  const found: Findings = { problems: {}, remote: [] };
  messages.forEach((message, index) => {
    walkParts(message.parts, `messages.${index}.parts`, message.role === "user", policy, found);
  });
  return found;
}
