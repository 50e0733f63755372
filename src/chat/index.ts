/**
 * `terreno-mcp/chat`: a `POST /chat` route for the AI SDK's `useChat`, with the caller's own
 * tools, approval before writes, stored conversations, feedback, telemetry, a rate limit and
 * PII redaction. A separate entry point so that the package root never imports `ai`. The offline
 * demo model is in `terreno-mcp/chat/demo`.
 */

export type { ChatRemoteFilesOptions } from "./chatFiles.js";
export { type ChatModelInfo, chatModelInfo } from "./chatInfo.js";
export {
  type ChatPluginOptions,
  type ChatRateLimitOptions,
  chatPlugin,
  DEFAULT_CHAT_SYSTEM,
} from "./chatPlugin.js";
export {
  ChatFeedback,
  ChatMessage,
  ChatStreamChunk,
  ChatTelemetry,
  ChatToolApproval,
  Conversation,
} from "./models.js";
export { type PIIKind, Redactor, redactModelMessage } from "./redact.js";
export {
  chunkMarkdown,
  type DocChunk,
  type DocHit,
  type DocsEmbeddingsOptions,
  DocsIndex,
  SEARCH_DOCS_TOOL_NAME,
  type SearchDocsInput,
  type SearchDocsOptions,
  searchDocsTool,
} from "./searchDocs.js";
export type { RedisStreamBufferClient, RedisStreamBufferOptions } from "./turnBufferRedis.js";
export type { ChatApproval } from "./types.js";
