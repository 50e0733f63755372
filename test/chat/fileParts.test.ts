/**
 * File parts in `POST /chat` (issue 33.1, SSRF): a signed-in user's message could name any URL,
 * and the AI SDK downloaded it from the server (its guard reads the host name as text, so a name
 * that resolves to 127.0.0.1 passed). By default the chat takes files only inline (`data:` URLs)
 * and refuses any other URL with a 400 naming the part, before anything is stored or fetched.
 * An app that allows remote files (`chatPlugin({remoteFiles})`) gets them through the outbound
 * fence (src/http/fencedFetch.ts): special-use addresses, redirects and oversized files are
 * refused (one answer for every failure), and the AI SDK never fetches anything itself.
 *
 * The internal service is a listener on 127.0.0.1 that must receive nothing; the attacker's host
 * name resolves to it through a hook on the process's resolver (dns.lookup, which Node's fetch
 * and sockets use), as a name in a corporate DNS would.
 */
import assert from "node:assert/strict";
import dns from "node:dns";
import { createServer, type Server } from "node:http";
import { syncBuiltinESMExports } from "node:module";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { ChatMessage, Conversation } from "../../src/chat/index.js";
import type { PlainObject } from "../../src/core/types.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { serverLog } from "../helpers/serverLog.js";
import { buildChatApp, postChat, scriptedModel } from "./helpers.js";

useTestDatabase("chat_file_parts");

/** A name no text check can tell is internal; the hook below resolves it to 127.0.0.1. */
const INTERNAL_NAME = "files.corp-intranet.test";

/** `dns.lookup` answering INTERNAL_NAME with 127.0.0.1; returns the undo. */
function resolveToLoopback(name: string): () => void {
  const original = dns.lookup;
  const hooked = ((hostname: string, options: unknown, callback: unknown) => {
    const done = (typeof options === "function" ? options : callback) as (
      error: Error | null,
      address: string | Array<{ address: string; family: number }>,
      family?: number,
    ) => void;
    if (hostname !== name) {
      return (original as (...args: unknown[]) => void)(hostname, options, callback);
    }
    const all = typeof options === "object" && options !== null && "all" in options;
    if (all && (options as { all?: boolean }).all) {
      done(null, [{ address: "127.0.0.1", family: 4 }]);
    } else done(null, "127.0.0.1", 4);
  }) as typeof dns.lookup;
  dns.lookup = hooked;
  syncBuiltinESMExports();
  return () => {
    dns.lookup = original;
    syncBuiltinESMExports();
  };
}

const FILES = [
  { name: "secret.png", mediaType: "image/png" },
  { name: "secret.pdf", mediaType: "application/pdf" },
  { name: "secret.txt", mediaType: "text/plain" },
];

function withFile(url: string, mediaType: string, id = `u-${Math.random().toString(36).slice(2)}`) {
  return {
    id,
    role: "user",
    parts: [
      { type: "text", text: "What does this file say?" },
      { type: "file", url, mediaType, filename: "file" },
    ],
  };
}

describe("chat file parts", () => {
  let ada: TestUser;
  let listener: Server;
  let port: number;
  const received: string[] = [];
  let undoHook: () => void;

  before(async () => {
    ada = await signUp(buildChatApp({ model: scriptedModel() }), "ada");
    listener = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      if (req.url === "/redirect.txt") {
        res.writeHead(302, { location: "/secret.txt" }).end();
      } else if (req.url === "/big.txt") {
        res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(64 * 1024));
      } else res.writeHead(200, { "content-type": "text/plain" }).end("the internal secret");
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as AddressInfo).port;
    undoHook = resolveToLoopback(INTERNAL_NAME);
  });

  after(async () => {
    undoHook();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  test("the resolver hook works: the name reaches the listener (so a silent listener below means refused)", async () => {
    const res = await fetch(`http://${INTERNAL_NAME}:${port}/probe`);
    assert.equal(await res.text(), "the internal secret");
    assert.deepEqual(received.splice(0), ["GET /probe"]);
  });

  test("a remote URL (png, pdf, txt) is a 400 naming the part; nothing is fetched, stored or sent", async () => {
    const log = serverLog();
    const model = scriptedModel();
    const app = buildChatApp({ model, rateLimit: false }, log.appOptions);
    const storedBefore = await ChatMessage.countDocuments({});
    const hosts = [INTERNAL_NAME, "localhost", "127.0.0.1", "[::ffff:127.0.0.1]"];
    for (const host of hosts) {
      for (const file of FILES) {
        const url = `http://${host}:${port}/${file.name}`;
        const reply = await postChat(app, ada, { messages: [withFile(url, file.mediaType)] });
        assert.equal(reply.status, 400, `${url}: ${JSON.stringify(reply.body)}`);
        const body = reply.body as PlainObject;
        assert.equal(body.code, "validation_failed");
        assert.deepEqual(Object.keys(body.fields as PlainObject), ["messages.0.parts.1"]);
        assert.match(String(body.detail), /inline/);
      }
    }
    // Let any download the SDK might have started in the background arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(received, [], "the internal listener received nothing");
    assert.equal(model.doStreamCalls.length, 0, "the model is never called");
    assert.equal(await ChatMessage.countDocuments({}), storedBefore, "nothing is stored");
    assert.equal(await Conversation.countDocuments({ ownerId: ada.userId }), 0);
    assert.deepEqual(log.serverErrors(), []);
  });

  test("every place a file can hide is checked: an earlier message, an assistant's file, a steering message's file, a reasoning file", async () => {
    const model = scriptedModel();
    const app = buildChatApp({ model });
    const url = `http://${INTERNAL_NAME}:${port}/secret.txt`;
    /** A conversation whose assistant message (between two user turns) carries `parts`. */
    const afterAssistant = (parts: unknown[]) => [
      { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] },
      { id: "a1", role: "assistant", parts },
      { id: "u2", role: "user", parts: [{ type: "text", text: "and now?" }] },
    ];
    const cases: Array<{ messages: unknown[]; field: string }> = [
      {
        messages: [
          withFile(url, "text/plain"),
          { id: "a1", role: "assistant", parts: [{ type: "text", text: "ok" }] },
          { id: "u2", role: "user", parts: [{ type: "text", text: "and now?" }] },
        ],
        field: "messages.0.parts.1",
      },
      {
        messages: afterAssistant([{ type: "file", url, mediaType: "text/plain" }]),
        field: "messages.1.parts.0",
      },
      {
        messages: afterAssistant([
          {
            type: "steering-message",
            id: "s1",
            parts: [
              { type: "text", text: "look" },
              { type: "file", url, mediaType: "image/png" },
            ],
          },
        ]),
        field: "messages.1.parts.0.parts.1",
      },
      {
        messages: afterAssistant([{ type: "reasoning-file", url, mediaType: "image/png" }]),
        field: "messages.1.parts.0",
      },
    ];
    for (const { messages, field } of cases) {
      const reply = await postChat(app, ada, { messages });
      assert.equal(reply.status, 400, `${field}: ${JSON.stringify(reply.body)}`);
      assert.deepEqual(Object.keys((reply.body as PlainObject).fields as PlainObject), [field]);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(received, []);
    assert.equal(model.doStreamCalls.length, 0);
  });

  test("an inline file (data: URL) reaches the model as bytes", async () => {
    const model = scriptedModel();
    const app = buildChatApp({ model });
    const dataUrl = `data:text/plain;base64,${Buffer.from("hello file").toString("base64")}`;
    const reply = await postChat(app, ada, { messages: [withFile(dataUrl, "text/plain")] });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.text, "ok.");
    const prompt = model.doStreamCalls[0].prompt;
    const user = prompt.find((message) => message.role === "user");
    const file = ((user?.content ?? []) as unknown as PlainObject[]).find(
      (part) => part.type === "file",
    );
    const inline = file?.data as PlainObject | undefined;
    assert.equal(inline?.type, "data", `inline bytes, not a URL: ${JSON.stringify(file)}`);
    const bytes = inline?.data;
    const text =
      typeof bytes === "string"
        ? Buffer.from(bytes, "base64").toString("utf8")
        : Buffer.from(bytes as Uint8Array).toString("utf8");
    assert.equal(text, "hello file");
    assert.deepEqual(received, []);
  });
  /** The file part of the user message the model got. */
  function promptFile(model: ReturnType<typeof scriptedModel>): PlainObject | undefined {
    const prompt = model.doStreamCalls.at(-1)?.prompt ?? [];
    const user = prompt.find((message) => message.role === "user");
    return ((user?.content ?? []) as unknown as PlainObject[]).find((part) => part.type === "file");
  }

  test("remote files allowed: the fence still refuses loopback and private addresses, with one answer", async () => {
    const log = serverLog();
    const model = scriptedModel();
    const app = buildChatApp(
      { model, rateLimit: false, remoteFiles: { allowHttp: true } },
      log.appOptions,
    );
    const conversations = await Conversation.countDocuments({ ownerId: ada.userId });
    for (const host of [INTERNAL_NAME, "localhost", "127.0.0.1", "[::ffff:127.0.0.1]"]) {
      for (const file of FILES) {
        const url = `http://${host}:${port}/${file.name}`;
        const reply = await postChat(app, ada, { messages: [withFile(url, file.mediaType)] });
        assert.equal(reply.status, 400, `${url}: ${JSON.stringify(reply.body)}`);
        const body = reply.body as PlainObject;
        assert.deepEqual(body.fields, { "messages.0.parts.1": "could not be fetched" });
        assert.doesNotMatch(String(body.detail), /127\.0\.0\.1|loopback|private/);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(received, [], "the internal listener received nothing");
    assert.equal(model.doStreamCalls.length, 0);
    assert.equal(await Conversation.countDocuments({ ownerId: ada.userId }), conversations);
    // Only https unless http is allowed as well; never a URL with credentials.
    const https = buildChatApp({ model, rateLimit: false, remoteFiles: {} });
    const plain = await postChat(https, ada, {
      messages: [withFile("http://example.com/a.txt", "text/plain")],
    });
    assert.equal(plain.status, 400);
    assert.match(String((plain.body as PlainObject).detail), /https/);
    const credentials = await postChat(https, ada, {
      messages: [withFile("https://user:pw@example.com/a.txt", "text/plain")],
    });
    assert.equal(credentials.status, 400);
    // An assistant's file would go to the provider as a URL: it must be inline even so.
    const assistantFile = await postChat(https, ada, {
      messages: [
        { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] },
        {
          id: "a1",
          role: "assistant",
          parts: [{ type: "file", url: "https://example.com/a.png", mediaType: "image/png" }],
        },
        { id: "u2", role: "user", parts: [{ type: "text", text: "and now?" }] },
      ],
    });
    assert.equal(assistantFile.status, 400);
    assert.deepEqual(Object.keys((assistantFile.body as PlainObject).fields as PlainObject), [
      "messages.1.parts.0",
    ]);
    assert.deepEqual(received, []);
    assert.deepEqual(log.serverErrors(), []);
  });

  test("remote files from an allowed address are fetched once through the fence and reach the model inline", async () => {
    const log = serverLog();
    const model = scriptedModel();
    const app = buildChatApp(
      {
        model,
        rateLimit: false,
        remoteFiles: { allowHttp: true, allowAddresses: ["127.0.0.1"], maxBytes: 1024 },
      },
      log.appOptions,
    );
    const url = `http://${INTERNAL_NAME}:${port}/secret.txt`;
    const reply = await postChat(app, ada, { messages: [withFile(url, "text/plain")] });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(received.splice(0), ["GET /secret.txt"], "fetched once, by the fence");
    const file = promptFile(model);
    const inline = file?.data as PlainObject | undefined;
    assert.equal(inline?.type, "data", `inline, not a URL: ${JSON.stringify(file)}`);
    const bytes = inline?.data;
    const text =
      typeof bytes === "string"
        ? Buffer.from(bytes, "base64").toString("utf8")
        : Buffer.from(bytes as Uint8Array).toString("utf8");
    assert.equal(text, "the internal secret");

    // No redirects, and the byte limit holds: one answer for both.
    for (const name of ["redirect.txt", "big.txt"]) {
      const refused = await postChat(app, ada, {
        messages: [withFile(`http://${INTERNAL_NAME}:${port}/${name}`, "text/plain")],
      });
      assert.equal(refused.status, 400, `${name}: ${JSON.stringify(refused.body)}`);
      assert.deepEqual((refused.body as PlainObject).fields, {
        "messages.0.parts.1": "could not be fetched",
      });
    }
    assert.deepEqual(received.splice(0), ["GET /redirect.txt", "GET /big.txt"]);
    assert.deepEqual(log.serverErrors(), []);
  });
});
