/**
 * The chat's routes in `/openapi.json` (TerrenoPlugin.openApi): `POST /chat` (a UI message
 * stream), the conversations and their messages, feedback, held approvals, info and telemetry.
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

/** The contribution for a chat mounted at `basePath` (default `/chat`). */
export function chatOpenApi(basePath: string, helpers: OpenApiHelpers): OpenApiContribution {
  // Every chat route needs a signed-in caller.
  const security = helpers.security.length > 0 ? [...helpers.security] : undefined;
  const op = (
    operationId: string,
    summary: string,
    responses: OpenApiJson,
    errors: number[],
    extra: OpenApiJson = {},
  ) => ({
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
              "Oldest first.",
              data({ type: "array", items: schemaRef("ChatApprovalRequest") }),
            ),
          },
          [],
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
    },
  };
}
