/**
 * terreno-mcp/react against a real listening app: useTerrenoChat (auth header, streamed reply,
 * conversation id, approve/deny of a write) and useMCPTools, rendered with react-dom/client in
 * a happy-dom document. No JSX: a tiny component built with createElement.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { UIMessage } from "ai";
import type { Express } from "express";
import { Window } from "happy-dom";
import { createElement } from "react";
import type { Root } from "react-dom/client";
import type { PlainObject } from "../../src/core/types.js";
import {
  findApprovalId,
  type UseMCPToolsResult,
  type UseTerrenoChatOptions,
  type UseTerrenoChatResult,
  useMCPTools,
  useTerrenoChat,
} from "../../src/react/index.js";
import { buildChatApp, type Step, scriptedModel, waitFor } from "../chat/helpers.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { type Listening, listen } from "../helpers/mcpClients.js";
import { Todo } from "../helpers/models.js";

useTestDatabase("react_hooks");

// A minimal DOM for react-dom/client; node's own fetch stays in place.
const happy = new Window({ url: "http://localhost/" });
const g = globalThis as Record<string, unknown>;
g.window = happy;
g.document = happy.document;
g.navigator ??= happy.navigator;
g.IS_REACT_ACT_ENVIRONMENT = false;

/** Renders `hook` in a component and exposes its latest result. */
async function renderHook<T>(hook: () => T): Promise<{ current: () => T; unmount(): void }> {
  const { createRoot } = await import("react-dom/client");
  let latest: T | undefined;
  let rendered = false;
  function Probe() {
    latest = hook();
    rendered = true;
    return null;
  }
  const container = happy.document.createElement("div");
  happy.document.body.appendChild(container);
  const root: Root = createRoot(container as unknown as Element);
  root.render(createElement(Probe));
  await waitFor(async () => rendered);
  return {
    current: () => latest as T,
    unmount: () => root.unmount(),
  };
}

interface Server {
  app: Express;
  server: Listening;
  user: TestUser;
}

const servers: Listening[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  happy.close();
});

async function startServer(steps: Step[] = []): Promise<Server> {
  const app = buildChatApp({ model: scriptedModel(steps), rateLimit: false });
  const server = await listen(app);
  servers.push(server);
  const user = await signUp(app, "reacter");
  return { app, server, user };
}

type ChatHook = UseTerrenoChatResult<UIMessage>;

/** What each chat request carried: its authorization header and JSON body. */
type Seen = Array<{ auth: string | null; body: PlainObject }>;

function chatOptions(server: Server, seen: Seen): UseTerrenoChatOptions {
  return {
    api: `${server.server.url}/chat`,
    getToken: async () => server.user.token,
    fetch: async (input, init) => {
      seen.push({
        auth: new Headers(init?.headers).get("authorization"),
        body: JSON.parse(String(init?.body ?? "{}")),
      });
      return fetch(input, init);
    },
  };
}

type ToolPart = { toolCallId: string; state: string; approval?: { id: string } };

function toolParts(messages: UIMessage[]): ToolPart[] {
  return messages
    .flatMap((message) => message.parts as unknown as Array<Partial<ToolPart>>)
    .filter((part): part is ToolPart => typeof part.toolCallId === "string");
}

function textOf(messages: UIMessage[]): string {
  return messages
    .filter((message) => message.role === "assistant")
    .flatMap((message) => message.parts)
    .map((part) => (part.type === "text" ? part.text : ""))
    .join("");
}

/**
 * A chat whose model asks to create a todo titled `title` (then says `reply`): sends "add a
 * todo", waits for the approval request and hands it to `run`; the hook is unmounted after.
 */
async function withPendingWrite(
  title: string,
  reply: string,
  run: (ctx: { hook: { current: () => ChatHook }; seen: Seen; pending: ToolPart }) => Promise<void>,
): Promise<void> {
  const server = await startServer([{ tools: [["todos_create", { title }]] }, { text: [reply] }]);
  const seen: Seen = [];
  const hook = await renderHook<ChatHook>(() => useTerrenoChat(chatOptions(server, seen)));
  try {
    await hook.current().sendMessage({ text: "add a todo" });
    const pending = await waitFor(async () =>
      hook.current().status === "ready"
        ? toolParts(hook.current().messages).find((p) => p.state === "approval-requested")
        : undefined,
    );
    await run({ hook, seen, pending });
  } finally {
    hook.unmount();
  }
}

describe("terreno-mcp/react", () => {
  let shared: Server;
  before(async () => {
    shared = await startServer([{ text: ["Hello ", "from ", "terreno."] }]);
  });

  test("useTerrenoChat sends the bearer token, streams the reply, keeps the conversation id", async () => {
    const seen: Seen = [];
    const hook = await renderHook<ChatHook>(() => useTerrenoChat(chatOptions(shared, seen)));
    try {
      await hook.current().sendMessage({ text: "hi" });
      await waitFor(async () => hook.current().status === "ready" && hook.current().conversationId);
      assert.equal(seen[0].auth, `Bearer ${shared.user.token}`);
      assert.equal(seen[0].body.conversationId, undefined);
      assert.equal(textOf(hook.current().messages), "Hello from terreno.");
      const conversationId = hook.current().conversationId;
      assert.match(String(conversationId), /^[0-9a-f]{24}$/);
      // The next request continues the same conversation.
      await hook.current().sendMessage({ text: "again" });
      await waitFor(async () => hook.current().status === "ready" && seen.length === 2);
      assert.equal(seen[1].body.conversationId, conversationId);
      assert.equal(hook.current().error, undefined);
    } finally {
      hook.unmount();
    }
  });

  test("a write waits for approval; approve(toolCallId) runs it once", async () => {
    await withPendingWrite("React approved todo", "Created.", async ({ hook, seen, pending }) => {
      assert.equal(await Todo.countDocuments({ title: "React approved todo" }), 0);
      assert.equal(
        findApprovalId(hook.current().messages, pending.toolCallId),
        pending.approval?.id,
      );
      await hook.current().approve(pending.toolCallId);
      // sendAutomaticallyWhen re-sends the approval; the tool runs on the server.
      await waitFor(
        async () =>
          seen.length === 2 &&
          hook.current().status === "ready" &&
          textOf(hook.current().messages).includes("Created."),
        5000,
      );
      const part = toolParts(hook.current().messages).find(
        (p) => p.toolCallId === pending.toolCallId,
      );
      assert.equal(part?.state, "output-available");
      assert.equal(await Todo.countDocuments({ title: "React approved todo" }), 1);
      assert.equal(findApprovalId(hook.current().messages, pending.toolCallId), undefined);
      await assert.rejects(hook.current().approve(pending.toolCallId), /No pending approval/);
    });
  });

  test("deny(toolCallId) writes nothing", async () => {
    await withPendingWrite("React denied todo", "Not created.", async ({ hook, seen, pending }) => {
      await hook.current().deny(pending.toolCallId, "not now");
      await waitFor(async () => seen.length === 2 && hook.current().status === "ready", 5000);
      const part = toolParts(hook.current().messages).find(
        (p) => p.toolCallId === pending.toolCallId,
      );
      assert.equal(part?.state, "output-denied");
      assert.equal(await Todo.countDocuments({ title: "React denied todo" }), 0);
    });
  });

  test("useMCPTools lists the caller's tools; an anonymous caller gets an error", async () => {
    let tokenReads = 0;
    const getToken = () => {
      tokenReads += 1;
      return shared.user.token;
    };
    const hook = await renderHook<UseMCPToolsResult>(() =>
      useMCPTools({ url: `${shared.server.url}/mcp`, getToken }),
    );
    try {
      await waitFor(async () => !hook.current().loading, 5000);
      assert.equal(hook.current().error, undefined);
      const names = hook.current().tools.map((t) => t.name);
      assert.ok(names.includes("todos_create"), names.join(","));
      assert.ok(names.includes("foods_list"), names.join(","));
      assert.ok(!names.includes("foods_create"));
      assert.equal(tokenReads, 1);
      hook.current().refresh();
      await waitFor(async () => tokenReads === 2 && !hook.current().loading, 5000);
      assert.deepEqual(
        hook.current().tools.map((t) => t.name),
        names,
      );
    } finally {
      hook.unmount();
    }
    const anonymous = await renderHook<UseMCPToolsResult>(() =>
      useMCPTools({ url: `${shared.server.url}/mcp`, getToken: () => undefined }),
    );
    try {
      await waitFor(async () => !anonymous.current().loading, 5000);
      assert.ok(anonymous.current().error instanceof Error);
      assert.deepEqual(anonymous.current().tools, []);
    } finally {
      anonymous.unmount();
    }
  });
});
