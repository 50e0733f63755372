/**
 * What the chat's OpenAPI entries share (chatOpenApi.ts, chatAppsOpenApi.ts): the component
 * schemas, the response and parameter builders, and the shape of an operation builder.
 */

import type { OpenApiJson } from "../plugin/types.js";
import { OBJECT_ID_PATTERN } from "../schema/fieldSchema.js";

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const data = (schema: OpenApiJson) => ({
  type: "object",
  properties: { data: schema },
  required: ["data"],
});
export const json = (description: string, schema: OpenApiJson) => ({
  description,
  content: { "application/json": { schema } },
});
export const idParameter = (description: string) => ({
  name: "id",
  in: "path",
  required: true,
  description,
  schema: { type: "string", pattern: OBJECT_ID_PATTERN },
});
export const listParameters = [
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

export const SCHEMAS: Record<string, OpenApiJson> = {
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
      workspaceId: {
        type: "string",
        description: "The workspace it was started in; every later turn acts there.",
      },
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

/** Builds one operation: tag, security and the shared error responses added. */
export type Operation = (
  operationId: string,
  summary: string,
  responses: OpenApiJson,
  errors: number[],
  extra?: OpenApiJson,
) => OpenApiJson;
