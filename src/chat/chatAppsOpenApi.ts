/** The chat's MCP Apps routes in `/openapi.json` (chatApps.ts), with MCP Apps on. */
import type { OpenApiJson } from "../plugin/types.js";
import { data, json, type Operation, schemaRef } from "./chatOpenApiParts.js";

/** The chat's MCP Apps routes (`GET /apps[/:tool]`, `POST /app-calls[/:toolCallId]`). */
export function appPaths(base: string, op: Operation, body: (schema: OpenApiJson) => OpenApiJson) {
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
            arguments: {
              type: "object",
              description:
                "The tool's input, checked against its input schema before it runs or is put " +
                "to you: a misfit is a 400 naming the argument (`arguments.<name>`).",
            },
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
