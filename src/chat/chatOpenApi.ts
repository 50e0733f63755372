/**
 * The chat's routes in `/openapi.json` (TerrenoPlugin.openApi): `POST /chat` (a UI message
 * stream), the conversations and their messages, feedback, held approvals, info and telemetry,
 * and with MCP Apps on, the views and the views' own tool calls (chatApps.ts).
 */
import type { OpenApiContribution, OpenApiHelpers, OpenApiJson } from "../plugin/types.js";
import { appPaths } from "./chatAppsOpenApi.js";
import {
  data,
  idParameter,
  json,
  listParameters,
  type Operation,
  SCHEMAS,
  schemaRef,
} from "./chatOpenApiParts.js";

const TAG = "Chat";

/**
 * The contribution for a chat mounted at `basePath` (default `/chat`); `apps`: whether the
 * app serves MCP Apps views (the chat then mounts their routes); `remoteFiles`: whether
 * `POST /chat` fetches a user's files named by URL (chatFiles.ts).
 */
export function chatOpenApi(
  basePath: string,
  helpers: OpenApiHelpers,
  { apps = false, remoteFiles = false }: { apps?: boolean; remoteFiles?: boolean } = {},
): OpenApiContribution {
  // Every chat route needs a signed-in caller.
  const security = helpers.security.length > 0 ? [...helpers.security] : undefined;
  const op: Operation = (operationId, summary, responses, errors, extra = {}) => ({
    tags: [TAG],
    operationId,
    summary,
    ...(security ? { security } : {}),
    ...extra,
    responses: { ...responses, ...helpers.errors([401, ...errors]) },
  });
  const body = (schema: OpenApiJson) => ({
    requestBody: { required: true, content: { "application/json": { schema } } },
  });
  const conversationId = idParameter("The conversation's id.");
  const feedbackId = idParameter("The feedback's id.");
  const base = basePath.replace(/\/+$/, "");
  const chatErrors = [400, 403, 404, 409, 413, ...(helpers.rateLimited ? [429] : [])];

  return {
    tags: [{ name: TAG, description: "The assistant chat (`terreno-mcp/chat`)." }],
    schemas: SCHEMAS,
    paths: {
      [base]: {
        post: op(
          "chatSend",
          "Send a turn; the answer streams as an AI SDK 7 UI message stream",
          {
            "200": {
              description:
                "A UI message stream (Server-Sent Events). The conversation's id is in " +
                "`X-Conversation-Id`.",
              headers: {
                "X-Conversation-Id": {
                  description: "The stored conversation's id.",
                  schema: { type: "string" },
                },
              },
              content: { "text/event-stream": { schema: { type: "string" } } },
            },
            ...(remoteFiles
              ? {
                  "503": {
                    description:
                      "Too many remote files are being fetched (code remote_files_busy); " +
                      "send the message again shortly.",
                    headers: {
                      "Retry-After": {
                        description: "Seconds to wait before retrying.",
                        schema: { type: "integer", minimum: 1 },
                      },
                    },
                  },
                }
              : {}),
          },
          chatErrors,
          {
            description:
              "An approval answer in `messages` runs its tool only when it matches a request " +
              "this server recorded, unanswered, for you in this conversation with the same " +
              "input (403 otherwise, 409 when already answered). Every part is checked first: " +
              "a malformed one is a 400 naming it (`messages.<i>.parts.<j>`), and so is a file " +
              (remoteFiles
                ? "that is neither inline (a `data:` URL) nor a user's file at a URL the server " +
                  "could fetch through its outbound fence (one answer for every failure)."
                : "that is not inline (a `data:` URL): this server fetches no remote files."),
            ...body({
              type: "object",
              properties: {
                id: { type: "string", maxLength: 200, description: "The useChat id." },
                conversationId: {
                  type: "string",
                  description: "A stored conversation to continue.",
                },
                messages: { type: "array", minItems: 1, items: schemaRef("ChatUIMessage") },
              },
              required: ["messages"],
            }),
          },
        ),
      },
      [`${base}/info`]: {
        get: op(
          "chatInfo",
          "Which model answers and how writes are gated",
          {
            "200": json("The model.", data(schemaRef("ChatModelInfo"))),
          },
          [],
        ),
      },
      [`${base}/approvals`]: {
        get: op(
          "chatApprovalsList",
          "Your approval requests still waiting for an answer",
          {
            "200": json(
              "Oldest first, at most 100.",
              data({ type: "array", items: schemaRef("ChatApprovalRequest") }),
            ),
          },
          [400],
          {
            parameters: [
              {
                name: "conversationId",
                in: "query",
                description: "Only this conversation's.",
                schema: { type: "string", maxLength: 200 },
              },
            ],
          },
        ),
      },
      [`${base}/telemetry`]: {
        get: op(
          "chatTelemetry",
          "Aggregates over recent chat requests (admins only)",
          {
            "200": json(
              "Counts, success rate, tokens, latency and the recent rows.",
              data({ type: "object" }),
            ),
          },
          [403],
          {
            parameters: [
              {
                name: "limit",
                in: "query",
                description: "Recent rows.",
                schema: { type: "integer", minimum: 1 },
              },
            ],
          },
        ),
      },
      [`${base}/conversations`]: {
        get: op(
          "chatConversationsList",
          "Your conversations, latest first",
          {
            "200": json(
              "A page of conversations.",
              data({ type: "array", items: schemaRef("ChatConversation") }),
            ),
          },
          [400],
          { parameters: listParameters },
        ),
        post: op(
          "chatConversationsCreate",
          "Start an empty conversation",
          {
            "201": json("The conversation.", data(schemaRef("ChatConversation"))),
          },
          [400],
          // The other fields are the chat's to set: a 400 naming the field.
          body({
            type: "object",
            properties: { title: { type: "string", maxLength: 200 } },
            additionalProperties: false,
          }),
        ),
      },
      [`${base}/conversations/{id}`]: {
        get: op(
          "chatConversationsRead",
          "One of your conversations",
          {
            "200": json("The conversation.", data(schemaRef("ChatConversation"))),
          },
          [403, 404],
          { parameters: [conversationId] },
        ),
        patch: op(
          "chatConversationsRename",
          "Rename a conversation (`title` only)",
          {
            "200": json("The conversation.", data(schemaRef("ChatConversation"))),
          },
          [400, 403, 404],
          {
            parameters: [conversationId],
            ...body({
              type: "object",
              properties: { title: { type: "string", maxLength: 200 } },
              additionalProperties: false,
            }),
          },
        ),
        delete: op(
          "chatConversationsDelete",
          "Delete a conversation with its messages and feedback",
          {
            "204": { description: "Deleted." },
          },
          [403, 404],
          { parameters: [conversationId] },
        ),
      },
      [`${base}/conversations/{id}/messages`]: {
        get: op(
          "chatMessagesList",
          "A conversation's stored messages, oldest first",
          {
            "200": json(
              "Valid AI SDK UI messages: send them back as `messages` to continue.",
              data({ type: "array", items: schemaRef("ChatStoredMessage") }),
            ),
          },
          [404],
          { parameters: [conversationId] },
        ),
      },
      [`${base}/{id}/stream`]: {
        get: op(
          "chatStreamResume",
          "Reattach to the conversation's running reply (useChat `resume`)",
          {
            "200": {
              description:
                "The running turn as a UI message stream, from its first chunk, then the rest " +
                "as it comes.",
              content: { "text/event-stream": { schema: { type: "string" } } },
            },
            "204": { description: "No reply of this conversation is running." },
            "503": {
              description:
                "The stream buffer is unreachable (code stream_buffer_unavailable); the reply " +
                "is stored, as far as it got, in the conversation's messages.",
              headers: {
                "Retry-After": {
                  description: "Seconds to wait before retrying.",
                  schema: { type: "integer", minimum: 1 },
                },
              },
              content: {
                "application/json": { schema: { $ref: "#/components/schemas/Error" } },
              },
            },
          },
          [],
          { parameters: [conversationId] },
        ),
        delete: op(
          "chatStreamStop",
          "Stop the conversation's running reply; it is stored as stopped",
          { "204": { description: "Stopped, or nothing was running." } },
          [403, 404],
          { parameters: [conversationId] },
        ),
      },
      [`${base}/feedback`]: {
        get: op(
          "chatFeedbackList",
          "Your feedback, latest first",
          {
            "200": json(
              "A page of feedback.",
              data({ type: "array", items: schemaRef("ChatFeedback") }),
            ),
          },
          [400],
          { parameters: listParameters },
        ),
        post: op(
          "chatFeedbackCreate",
          "Rate one of your stored messages",
          {
            "201": json("The feedback.", data(schemaRef("ChatFeedback"))),
          },
          [400, 404],
          body({
            type: "object",
            properties: {
              messageId: {
                type: "string",
                description: "The stored row's id or the UI message id.",
              },
              rating: { type: "string", enum: ["up", "down"] },
              comment: { type: "string", maxLength: 2000 },
            },
            required: ["messageId", "rating"],
          }),
        ),
      },
      [`${base}/feedback/{id}`]: {
        get: op(
          "chatFeedbackRead",
          "One of your feedback rows",
          {
            "200": json("The feedback.", data(schemaRef("ChatFeedback"))),
          },
          [403, 404],
          { parameters: [feedbackId] },
        ),
        delete: op(
          "chatFeedbackDelete",
          "Delete one of your feedback rows",
          {
            "204": { description: "Deleted." },
          },
          [403, 404],
          { parameters: [feedbackId] },
        ),
      },
      ...(apps ? appPaths(base, op, body) : {}),
    },
  };
}
