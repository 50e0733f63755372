/**
 * The chat's routes in `/openapi.json` (TerrenoPlugin.openApi): `POST /chat` (a UI message
 * stream), the conversations and their messages, feedback, held approvals, info and telemetry,
 * and with MCP Apps on, the views and the views' own tool calls (chatApps.ts).
 */
import type { OpenApiContribution, OpenApiHelpers, OpenApiJson } from "../app/types.js";

const TAG = "Chat";

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const data = (schema: OpenApiJson) => ({
  type: "object",
  properties: { data: schema },
  required: ["data"],
});
const json = (description: string, schema: OpenApiJson) => ({
  description,
  content: { "application/json": { schema } },
});
const idParameter = (description: string) => ({
  name: "id",
  in: "path",
  required: true,
  description,
  schema: { type: "string", pattern: "^[0-9a-fA-F]{24}$" },
});
const listParameters = [
  {
    name: "limit",
    in: "query",
    description: "Page size.",
    schema: { type: "integer", minimum: 1 },
  },
  {
    name: "page",
    in: "query",
    description: "Page number, from 1.",
    schema: { type: "integer", minimum: 1 },
  },
];

const SCHEMAS: Record<string, OpenApiJson> = {
  ChatUIMessage: {
    type: "object",
    description: "An AI SDK 7 UI message, as useChat holds it.",
    properties: {
      id: { type: "string" },
      role: { type: "string", enum: ["user", "assistant", "system"] },
      parts: { type: "array", items: { type: "object" } },
      metadata: {},
    },
    required: ["role", "parts"],
  },
  ChatConversation: {
    type: "object",
    properties: {
      id: { type: "string" },
      ownerId: { type: "string" },
      title: { type: "string", maxLength: 200 },
      clientId: { type: "string", description: "The useChat id it was started from." },
      createdAt: { type: "string", format: "date-time" },
      updatedAt: { type: "string", format: "date-time" },
    },
    required: ["id", "title"],
  },
  ChatStoredMessage: {
    type: "object",
    description: "A stored message: a valid AI SDK UI message (`messageId`, `role`, `parts`).",
    properties: {
      id: { type: "string" },
      messageId: { type: "string", description: "The UI message id." },
      conversationId: { type: "string" },
      role: { type: "string", enum: ["user", "assistant", "system"] },
      parts: { type: "array", items: { type: "object" } },
      createdAt: { type: "string", format: "date-time" },
    },
    required: ["id", "messageId", "role", "parts"],
  },
  ChatFeedback: {
    type: "object",
    properties: {
      id: { type: "string" },
      messageId: { type: "string" },
      conversationId: { type: "string" },
      rating: { type: "string", enum: ["up", "down"] },
      comment: { type: "string", maxLength: 2000 },
      createdAt: { type: "string", format: "date-time" },
    },
    required: ["id", "messageId", "rating"],
  },
  ChatApprovalRequest: {
    type: "object",
    description: "An approval request the server issued that waits for an answer.",
    properties: {
      id: { type: "string" },
      conversationId: { type: "string" },
      toolCallId: { type: "string" },
      approvalId: { type: "string" },
      toolName: { type: "string" },
      input: { description: "The tool input the person is asked to approve." },
      createdAt: { type: "string", format: "date-time" },
    },
    required: ["conversationId", "toolCallId", "approvalId", "toolName"],
  },
  ChatAppView: {
    type: "object",
    description: "A tool's MCP App view, to render in a sandboxed frame.",
    properties: {
      toolName: { type: "string" },
      uri: { type: "string", description: "The view's `ui://` resource." },
      mimeType: { type: "string", enum: ["text/html;profile=mcp-app"] },
      html: { type: "string", description: "The view's HTML; it carries no record data." },
    },
    required: ["toolName", "uri", "mimeType", "html"],
  },
  ChatAppCallResult: {
    type: "object",
    description: "What MCP's `tools/call` answers, which a view's `callServerTool` expects.",
    properties: {
      content: {
        type: "array",
        items: {
          type: "object",
          properties: { type: { type: "string" }, text: { type: "string" } },
        },
      },
      structuredContent: { type: "object" },
      isError: { type: "boolean" },
    },
    required: ["content"],
  },
  ChatModelInfo: {
    type: "object",
    properties: {
      model: { type: "string" },
      provider: { type: "string" },
      label: { type: "string" },
      offline: { type: "boolean", description: "True for the rule-based demo model." },
      approval: { type: "string", enum: ["writes", "destructive", "none"] },
      maxMessageLength: {
        type: "integer",
        description: "Characters of text one message may have; a longer one is a 413.",
      },
    },
    required: ["model", "label", "offline", "approval", "maxMessageLength"],
  },
};

/** The chat's MCP Apps routes (`GET /apps[/:tool]`, `POST /app-calls[/:toolCallId]`). */
function appPaths(base: string, op: Operation, body: (schema: OpenApiJson) => OpenApiJson) {
  const scope = {
    conversationId: {
      type: "string",
      description: "The stored conversation the call belongs to (required when chats are stored).",
    },
    chatId: {
      type: "string",
      maxLength: 200,
      description: "The useChat id, when chats are not stored.",
    },
  };
  const result = json(
    "The call's result.",
    data({
      type: "object",
      properties: { result: schemaRef("ChatAppCallResult") },
      required: ["result"],
    }),
  );
  return {
    [`${base}/apps`]: {
      get: op(
        "chatAppsList",
        "The MCP App views of your tools",
        {
          "200": json(
            "One entry per tool of yours that links a view.",
            data({
              type: "array",
              items: {
                type: "object",
                properties: { toolName: { type: "string" }, uri: { type: "string" } },
                required: ["toolName", "uri"],
              },
            }),
          ),
        },
        [],
      ),
    },
    [`${base}/apps/{tool}`]: {
      get: op(
        "chatAppsRead",
        "The view a tool's results are drawn in",
        { "200": json("The view.", data(schemaRef("ChatAppView"))) },
        [404],
        {
          parameters: [
            {
              name: "tool",
              in: "path",
              required: true,
              description: "The tool's name (404 for a tool you do not have).",
              schema: { type: "string" },
            },
          ],
        },
      ),
    },
    [`${base}/app-calls`]: {
      post: op(
        "chatAppCallsCreate",
        "A view's own tool call: runs at once, or waits for your approval when gated",
        {
          "200": result,
          "202": json(
            "Gated: recorded as an approval request; nothing ran yet.",
            data({
              type: "object",
              properties: {
                approval: {
                  type: "object",
                  properties: {
                    toolCallId: { type: "string" },
                    approvalId: { type: "string" },
                    toolName: { type: "string" },
                    input: {},
                  },
                  required: ["toolCallId", "approvalId", "toolName"],
                },
              },
              required: ["approval"],
            }),
          ),
        },
        [400, 403, 404],
        body({
          type: "object",
          properties: {
            ...scope,
            name: { type: "string", maxLength: 200, description: "The tool to call." },
            arguments: { type: "object", description: "The tool's input." },
          },
          required: ["name"],
        }),
      ),
    },
    [`${base}/app-calls/{toolCallId}`]: {
      post: op(
        "chatAppCallsAnswer",
        "Your answer to a view's gated call: approved, it runs once",
        { "200": result },
        [400, 403, 404, 409],
        {
          parameters: [
            {
              name: "toolCallId",
              in: "path",
              required: true,
              description: "The `toolCallId` the 202 gave.",
              schema: { type: "string" },
            },
          ],
          ...body({
            type: "object",
            properties: {
              ...scope,
              approvalId: { type: "string", maxLength: 200 },
              approved: { type: "boolean" },
            },
            required: ["approvalId", "approved"],
          }),
        },
      ),
    },
  };
}

type Operation = (
  operationId: string,
  summary: string,
  responses: OpenApiJson,
  errors: number[],
  extra?: OpenApiJson,
) => OpenApiJson;

/**
 * The contribution for a chat mounted at `basePath` (default `/chat`); `apps`: whether the
 * app serves MCP Apps views (the chat then mounts their routes).
 */
export function chatOpenApi(
  basePath: string,
  helpers: OpenApiHelpers,
  { apps = false }: { apps?: boolean } = {},
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
          },
          chatErrors,
          {
            description:
              "An approval answer in `messages` runs its tool only when it matches a request " +
              "this server recorded, unanswered, for you in this conversation with the same " +
              "input (403 otherwise, 409 when already answered).",
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
          body({ type: "object", properties: { title: { type: "string", maxLength: 200 } } }),
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
