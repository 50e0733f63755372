/**
 * MCP as the wire carries it, for the tests that must see the raw messages (elicitation
 * questions streamed on a call, answers posted back): the initialize message, a post in a
 * session, the SSE messages of a streamed answer, and a todo made over REST to act on.
 */
import type { Express } from "express";
import request from "supertest";
import type { TestUser } from "./auth.js";

export const ACCEPT = "application/json, text/event-stream";

/** The `initialize` request of a client declaring `capabilities`. */
export function initializeMessage(capabilities: Record<string, unknown>) {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities,
      clientInfo: { name: "wire", version: "1" },
    },
  };
}

/** `tools/call` of `name` with `args`, as JSON-RPC request `id`. */
export function toolCallMessage(id: number, name: string, args: Record<string, unknown>) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/**
 * Posts `body` to `/mcp` on `app` (supertest), with a bearer `token` when given and any extra
 * `headers`; a string body goes as it is (for malformed JSON).
 */
export function rpc(
  app: Express,
  body: unknown,
  token?: string,
  headers: Record<string, string> = {},
) {
  const req = request(app)
    .post("/mcp")
    .set("Accept", ACCEPT)
    .set("Content-Type", "application/json");
  if (token) req.set("Authorization", `Bearer ${token}`);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req.send(typeof body === "string" ? body : JSON.stringify(body));
}

/** Initializes an MCP session on `app` as `user` (200 expected); the response. */
export function initialize(app: Express, user: TestUser, capabilities: Record<string, unknown>) {
  return request(app)
    .post("/mcp")
    .set("Authorization", `Bearer ${user.token}`)
    .set("Accept", ACCEPT)
    .send(initializeMessage(capabilities))
    .expect(200);
}

/** Posts a JSON-RPC message to `${url}/mcp` as `user` in `session`, with fetch (it may stream). */
export function postInSession(url: string, user: TestUser, session: string, body: unknown) {
  return fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${user.token}`,
      Accept: ACCEPT,
      "Content-Type": "application/json",
      "Mcp-Session-Id": session,
      "MCP-Protocol-Version": "2025-06-18",
    },
    body: JSON.stringify(body),
  });
}

/** Reads SSE `data:` messages from a streamed response, one at a time. */
export function sseMessages(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return async (): Promise<Record<string, unknown>> => {
    while (true) {
      const match = /data: (.*)\n/.exec(buffer);
      if (match) {
        buffer = buffer.slice(match.index + match[0].length);
        return JSON.parse(match[1] as string);
      }
      const chunk = await reader.read();
      if (chunk.done) throw new Error("stream ended");
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
}

/** Creates a todo titled `title` over REST as `user` (201 expected); its id. */
export async function createTodo(app: Express, user: TestUser, title: string): Promise<string> {
  const created = await request(app)
    .post("/todos")
    .set("Authorization", `Bearer ${user.token}`)
    .send({ title })
    .expect(201);
  return created.body.data.id as string;
}
