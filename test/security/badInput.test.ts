// Bad-input corpus (issue 7): one table of hostile requests, each naming the threat it covers,
// run against REST and MCP. Every case must get a clear 4xx or an isError result, write
// nothing (document counts before and after), and leak no hidden value (another user's or an
// MCP-excluded `internalNote`, password hashes).

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import jwt from "jsonwebtoken";
import qs from "qs";
import request from "supertest";
import { answerClientErrorsAsJson } from "../../src/app/clientErrors.js";
import { IsAuthenticated } from "../../src/core/permissions.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { bearer, signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { toolCallMessage } from "../helpers/mcpWire.js";
import { Food, Todo, User } from "../helpers/models.js";
import { JWT_SECRET, restTerreno, todoOptions } from "../helpers/restApp.js";

useTestDatabase("bad_input");

const ACCEPT = "application/json, text/event-stream";
/** Planted in the internalNote of Alice's todo: REST shows it to Alice, MCP never does. */
const ALICE_NOTE = "ALICE-INTERNAL-NOTE-7f39";
/** Planted in Bob's todo: Alice must never see it anywhere. */
const BOB_NOTE = "BOB-INTERNAL-NOTE-91c7";
const LONG_A = `${"a".repeat(5000)}!`;
const NOBODY_ID = "0123456789abcdef01234567";

// ---------------------------------------------------------------------------------------------
// The case table
// ---------------------------------------------------------------------------------------------

interface Fixtures {
  alice: TestUser;
  bob: TestUser;
  aliceTodo: string;
  bobTodo: string;
  foodId: string;
}

type Credential = "alice" | "none" | "expired" | "forged" | "algNone" | "refreshAsAccess";
type Dynamic<T> = T | ((fx: Fixtures) => T);
/** Any JSON value (spelled out so that `(fx) => ...` arguments are contextually typed). */
type Json = Record<string, unknown> | unknown[] | string | number | boolean | null;

interface RestSend {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: Dynamic<string>;
  /** An object is encoded with qs (bracket syntax); a string is appended verbatim. */
  query?: Record<string, unknown> | string;
  body?: Dynamic<Json>;
  /** Sent byte for byte instead of `body`. */
  raw?: string;
  contentType?: string;
  as?: Credential;
}

interface McpSend {
  /** A tools/call of `tool` with `args`. */
  tool?: string;
  args?: Dynamic<Json>;
  /** A full JSON-RPC message instead of a tools/call. */
  rpc?: unknown;
  raw?: string;
  /** `null` sends no Accept header at all. */
  accept?: string | null;
  contentType?: string;
  as?: Credential;
}

interface Expect {
  /** HTTP status (or the allowed statuses). MCP tool failures are HTTP 200 with isError. */
  status: number | number[];
  /** REST: the error body's `code`. */
  code?: string;
  /** MCP: the JSON-RPC error code. */
  rpcCode?: number;
  /** MCP: an isError tool result with this code. */
  toolCode?: string;
  /** Extra assertions on the parsed body. */
  check?: (body: Record<string, unknown>) => void;
  /** No-oracle cases: a second request (a nonexistent field) whose answer must be identical. */
  sameAs?: { send: RestSend | McpSend; names: [hidden: string, unknown: string] };
}

type Case =
  | { threat: string; surface: "rest"; send: RestSend; expect: Expect; slow?: boolean }
  | { threat: string; surface: "mcp"; send: McpSend; expect: Expect; slow?: boolean };

const rest = (threat: string, send: RestSend, expect: Expect, slow?: boolean): Case => ({
  threat,
  surface: "rest",
  send,
  expect,
  slow,
});
const mcp = (threat: string, send: McpSend, expect: Expect, slow?: boolean): Case => ({
  threat,
  surface: "mcp",
  send,
  expect,
  slow,
});

const invalid: Expect = { status: 400, code: "validation_failed" };
const toolInvalid: Expect = { status: 200, toolCode: "validation_failed" };

/** Server-side code, operator smuggling and a match-everything comparison. */
const INJECTIONS: Record<string, unknown> = {
  $gt: { $gt: "" },
  $where: { $where: "sleep(5000) || true" },
  $expr: { $expr: { $gt: ["$priority", 0] } },
  $function: { $function: { body: "function () { while (true) {} }", args: [], lang: "js" } },
};

/** The Todo router's filterable fields and every path of the Todo schema, from the model itself. */
const FILTER_FIELDS = todoOptions().queryFields ?? [];
const BODY_FIELDS = Object.keys(Todo.schema.paths);

function injectionCases(): Case[] {
  const cases: Case[] = [];
  for (const [name, operator] of Object.entries(INJECTIONS)) {
    for (const field of FILTER_FIELDS) {
      const threat = `injection: ${name} in filter field ${field}`;
      cases.push(
        rest(threat, { method: "GET", path: "/todos", query: { [field]: operator } }, invalid),
      );
      cases.push(
        mcp(threat, { tool: "todos_list", args: { filter: { [field]: operator } } }, toolInvalid),
      );
    }
    for (const field of BODY_FIELDS) {
      const body =
        field === "title" ? { title: operator } : { title: "injected", [field]: operator };
      const threat = `injection: ${name} in body field ${field}`;
      cases.push(rest(`${threat} (create)`, { method: "POST", path: "/todos", body }, invalid));
      cases.push(
        rest(
          `${threat} (update)`,
          { method: "PATCH", path: (fx) => `/todos/${fx.aliceTodo}`, body: { [field]: operator } },
          invalid,
        ),
      );
      cases.push(mcp(`${threat} (create)`, { tool: "todos_create", args: body }, toolInvalid));
      cases.push(
        mcp(
          `${threat} (update)`,
          { tool: "todos_update", args: (fx) => ({ id: fx.aliceTodo, [field]: operator }) },
          toolInvalid,
        ),
      );
    }
  }
  return cases;
}

/** An object with an own `__proto__` key, as JSON.parse builds it from a hostile body. */
const withProto = (json: string): Record<string, unknown> => JSON.parse(json);

function listPage(limit: number) {
  return (body: Record<string, unknown>) => {
    assert.equal(body.limit, limit, "limit is clamped to maxLimit");
    assert.equal(body.page, 1);
    assert.ok(Array.isArray(body.data));
  };
}

function mcpListPage(limit: number) {
  return (body: Record<string, unknown>) => {
    const result = body.result as { isError?: boolean; structuredContent: Record<string, unknown> };
    assert.equal(result.isError, undefined);
    listPage(limit)(result.structuredContent);
  };
}

/** A catastrophic-backtracking pattern comes back with results, or a 400 "took too long". */
function regexBounded(body: Record<string, unknown>) {
  const payload =
    (body.result as { structuredContent?: Record<string, unknown> } | undefined)
      ?.structuredContent ?? body;
  if (Array.isArray(payload.data)) {
    assert.equal(payload.data.length, 0, "(a+)+$ matches no string ending in '!'");
  } else {
    assert.match(String(payload.detail), /took too long/);
  }
}

const CASES: Case[] = [
  // --- Malformed requests ----------------------------------------------------------------
  rest(
    "malformed: truncated JSON body",
    { method: "POST", path: "/todos", raw: '{"title": ', contentType: "application/json" },
    invalid,
  ),
  mcp(
    "malformed: truncated JSON body",
    { raw: '{"jsonrpc": "2.0", "id": 1, ' },
    { status: 400, rpcCode: -32700 },
  ),
  rest(
    "malformed: wrong Content-Type (text/plain)",
    { method: "POST", path: "/todos", raw: '{"title":"x"}', contentType: "text/plain" },
    { status: 415, code: "unsupported_media_type" },
  ),
  rest(
    "malformed: wrong Content-Type (form-encoded)",
    {
      method: "POST",
      path: "/todos",
      raw: "title=x",
      contentType: "application/x-www-form-urlencoded",
    },
    { status: 415, code: "unsupported_media_type" },
  ),
  mcp(
    "malformed: wrong Content-Type (text/plain)",
    {
      raw: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      contentType: "text/plain",
    },
    { status: 415, rpcCode: -32000 },
  ),
  mcp(
    "malformed: missing Accept header",
    { rpc: { jsonrpc: "2.0", id: 1, method: "tools/list" }, accept: null },
    { status: 406 },
  ),
  mcp(
    "malformed: Accept without JSON (text/html)",
    { rpc: { jsonrpc: "2.0", id: 1, method: "tools/list" }, accept: "text/html" },
    { status: 406 },
  ),
  rest(
    "malformed: oversized body (30 kB > jsonLimit 20 kB)",
    { method: "POST", path: "/todos", body: { title: "x", tags: ["y".repeat(30_000)] } },
    { status: 413, code: "payload_too_large" },
  ),
  mcp(
    "malformed: oversized body (30 kB > jsonLimit 20 kB)",
    { tool: "todos_create", args: { title: "x", tags: ["y".repeat(30_000)] } },
    { status: 413, rpcCode: -32600 },
  ),
  mcp(
    "malformed: JSON-RPC batch array",
    {
      rpc: [
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        toolCallMessage(2, "todos_create", { title: "batched" }),
      ],
    },
    { status: 400, rpcCode: -32600 },
  ),
  rest(
    "malformed: an array body (batch) on a create route",
    { method: "POST", path: "/todos", body: [{ title: "a" }, { title: "b" }] },
    invalid,
  ),
  rest(
    "malformed: a JSON string body on a create route",
    { method: "POST", path: "/todos", raw: '"title"', contentType: "application/json" },
    invalid,
  ),

  // --- Protocol errors ---------------------------------------------------------------------
  mcp(
    "protocol: envelope without jsonrpc/method",
    { rpc: { hello: "world" } },
    { status: 400, rpcCode: -32600 },
  ),
  mcp(
    "protocol: envelope with jsonrpc 1.0",
    { rpc: { jsonrpc: "1.0", id: 1, method: "tools/list" } },
    { status: 400, rpcCode: -32600 },
  ),
  mcp(
    "protocol: unknown method",
    { rpc: { jsonrpc: "2.0", id: 1, method: "admin/dropDatabase" } },
    { status: 200, rpcCode: -32601 },
  ),
  mcp(
    "protocol: unknown tool",
    {
      rpc: toolCallMessage(1, "users_delete", {}),
    },
    { status: 200, rpcCode: -32602 },
  ),
  mcp(
    "protocol: wrong argument types (title as a number, priority out of range)",
    { tool: "todos_create", args: { title: 42, priority: 9 } },
    toolInvalid,
  ),
  mcp(
    "protocol: wrong argument types (limit as a string)",
    { tool: "todos_list", args: { limit: "ten" } },
    toolInvalid,
  ),
  mcp(
    "protocol: wrong argument types (id as an object)",
    { tool: "todos_read", args: { id: { $ne: null } } },
    toolInvalid,
  ),
  mcp(
    "protocol: arguments that are not an object",
    {
      rpc: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "todos_create", arguments: ["x"] },
      },
    },
    { status: 200, rpcCode: -32602 },
  ),

  // --- Paging abuse --------------------------------------------------------------------------
  rest(
    "paging: limit 10^9 is clamped to maxLimit (25)",
    { method: "GET", path: "/todos", query: { limit: "1000000000" } },
    { status: 200, check: listPage(25) },
  ),
  mcp(
    "paging: limit 10^9 is clamped to the MCP maxLimit (5)",
    { tool: "todos_list", args: { limit: 1_000_000_000 } },
    { status: 200, check: mcpListPage(5) },
  ),
  rest("paging: negative page", { method: "GET", path: "/todos", query: { page: "-1" } }, invalid),
  rest(
    "paging: fractional page",
    { method: "GET", path: "/todos", query: { page: "1.5" } },
    invalid,
  ),
  rest("paging: page 0", { method: "GET", path: "/todos", query: { page: "0" } }, invalid),
  rest(
    "paging: negative limit",
    { method: "GET", path: "/todos", query: { limit: "-5" } },
    invalid,
  ),
  rest(
    "paging: exponent limit",
    { method: "GET", path: "/todos", query: { limit: "1e9" } },
    invalid,
  ),
  mcp("paging: negative page", { tool: "todos_list", args: { page: -1 } }, toolInvalid),
  mcp("paging: fractional page", { tool: "todos_list", args: { page: 1.5 } }, toolInvalid),
  mcp("paging: limit 0", { tool: "todos_list", args: { limit: 0 } }, toolInvalid),
  rest(
    "paging: a 100 kB string in a filter (over Node's 16 kB header limit: 431)",
    { method: "GET", path: "/todos", query: `title=${"x".repeat(100_000)}` },
    { status: 431, code: "headers_too_large" },
  ),
  rest(
    "paging: a 15 kB string in a filter (over the 1000-character filter cap)",
    { method: "GET", path: "/todos", query: { title: "x".repeat(15_000) } },
    invalid,
  ),
  mcp(
    "paging: a 100 kB string in a filter",
    { tool: "todos_list", args: { filter: { title: "x".repeat(100_000) } } },
    { status: 413, rpcCode: -32600 },
  ),
  mcp(
    "paging: a 15 kB string in a filter (over the 1000-character filter cap)",
    { tool: "todos_list", args: { filter: { title: "x".repeat(15_000) } } },
    toolInvalid,
  ),
  rest(
    "paging: a 100 kB string in a body field",
    { method: "POST", path: "/todos", body: { title: "x".repeat(100_000) } },
    { status: 413, code: "payload_too_large" },
  ),
  rest(
    "paging: a 15 kB string in a body field (over maxlength 200)",
    { method: "POST", path: "/todos", body: { title: "x".repeat(15_000) } },
    invalid,
  ),
  mcp(
    "paging: a 100 kB string in a body field",
    { tool: "todos_create", args: { title: "x".repeat(100_000) } },
    { status: 413, rpcCode: -32600 },
  ),
  mcp(
    "paging: a 15 kB string in a body field (over maxlength 200)",
    { tool: "todos_create", args: { title: "x".repeat(15_000) } },
    toolInvalid,
  ),

  // --- Injection -----------------------------------------------------------------------------
  ...injectionCases(),
  rest(
    "injection: top-level $where in the query",
    { method: "GET", path: "/todos", query: { $where: "sleep(5000)" } },
    invalid,
  ),
  // $or/$and are filters now (issue #12 item 5): they are conjoined with the owner scope.
  rest(
    "injection: top-level $or to escape the owner scope (scoped, never widened)",
    {
      method: "GET",
      path: "/todos",
      query: { $or: [{ ownerId: NOBODY_ID }, { title: "bob's" }, { priority: { $gte: 1 } }] },
    },
    {
      status: 200,
      check: (body) =>
        assert.ok((body.data as Array<{ title: string }>).every((t) => t.title !== "bob's")),
    },
  ),
  rest(
    "injection: $where inside an $or branch",
    { method: "GET", path: "/todos", query: { $or: [{ title: "x" }, { $where: "sleep(5000)" }] } },
    invalid,
  ),
  rest(
    "injection: $nor, which stays refused next to $or/$and",
    { method: "GET", path: "/todos", query: { $nor: [{ title: "x" }] } },
    invalid,
  ),
  rest(
    "injection: $or/$and nested three levels",
    { method: "GET", path: "/todos", query: { $or: [{ $and: [{ $or: [{ title: "x" }] }] }] } },
    invalid,
  ),
  mcp(
    "injection: $where inside an $or branch",
    { tool: "todos_list", args: { filter: { $or: [{ title: "x" }, { $where: "1" }] } } },
    toolInvalid,
  ),
  mcp(
    "injection: top-level $where in the filter",
    { tool: "todos_list", args: { filter: { $where: "1" } } },
    toolInvalid,
  ),
  mcp(
    "injection: $where inside $in items",
    { tool: "todos_list", args: { filter: { title: { $in: [{ $where: "1" }] } } } },
    toolInvalid,
  ),
  // ReDoS. FerretDB matches with Go's RE2 (linear time, so no catastrophic backtracking), and it
  // honours maxTimeMS: checked by hand, a find or count with maxTimeMS 1 or 20 over 20,000
  // 500-character strings fails with code 50. The core maps that to a 400 "took too long". On
  // MongoDB (PCRE), the list query's maxTimeMS of 5000 is what bounds it. So the core needs no
  // separate regex-complexity cap, only the 200-character limit. Patterns the engine refuses
  // (look-around, back-references, huge repeats, NUL) must be 400s, never 500s.
  rest(
    "injection: catastrophic $regex (a+)+$ against a 5000-character field",
    { method: "GET", path: "/todos", query: { internalNote: { $regex: "(a+)+$" } } },
    { status: [200, 400], check: regexBounded },
    true,
  ),
  mcp(
    "injection: catastrophic $regex (a+)+$ against a long title",
    { tool: "todos_list", args: { filter: { title: { $regex: "(a+)+$" } } } },
    { status: 200, check: regexBounded },
    true,
  ),
  rest(
    "injection: $regex the database engine refuses (look-ahead)",
    { method: "GET", path: "/todos", query: { title: { $regex: "(?=a)a" } } },
    invalid,
  ),
  rest(
    "injection: $regex the database engine refuses (back-reference)",
    { method: "GET", path: "/todos", query: { title: { $regex: "(a)\\1" } } },
    invalid,
  ),
  mcp(
    "injection: $regex the database engine refuses (huge repeat)",
    { tool: "todos_list", args: { filter: { title: { $regex: "((a{100}){100}){100}" } } } },
    toolInvalid,
  ),
  mcp(
    "injection: $regex with a NUL byte (BSON C string)",
    { tool: "todos_list", args: { filter: { title: { $regex: "a\u0000b" } } } },
    toolInvalid,
  ),
  rest(
    "injection: $regex over 200 characters",
    { method: "GET", path: "/todos", query: { title: { $regex: "a".repeat(201) } } },
    invalid,
  ),
  rest(
    "injection: __proto__ key in the filter",
    { method: "GET", path: "/todos", query: "__proto__[admin]=true" },
    invalid,
  ),
  rest(
    "injection: __proto__ key inside a filter field",
    { method: "GET", path: "/todos", query: "title[$regex]=a&title[__proto__][admin]=true" },
    invalid,
  ),
  rest(
    "injection: constructor key in the filter",
    { method: "GET", path: "/todos", query: "constructor[prototype][admin]=true" },
    invalid,
  ),
  rest(
    "injection: constructor key inside a filter field",
    { method: "GET", path: "/todos", query: "title[constructor]=x" },
    invalid,
  ),
  mcp(
    "injection: __proto__ key in the filter",
    { tool: "todos_list", args: { filter: withProto('{"__proto__": {"admin": true}}') } },
    { status: 400, rpcCode: -32602 },
  ),
  mcp(
    "injection: constructor key in the filter",
    { tool: "todos_list", args: { filter: { constructor: { prototype: { admin: true } } } } },
    toolInvalid,
  ),
  rest(
    "injection: __proto__ key in a body",
    {
      method: "POST",
      path: "/todos",
      body: withProto('{"title": "x", "__proto__": {"admin": true}}'),
    },
    invalid,
  ),
  rest(
    "injection: constructor key in a body",
    {
      method: "POST",
      path: "/todos",
      body: { title: "x", constructor: { prototype: { admin: true } } },
    },
    invalid,
  ),
  rest(
    "injection: __proto__ key nested in a body array",
    {
      method: "POST",
      path: "/todos",
      body: withProto('{"title": "x", "tags": [{"__proto__": {"admin": true}}]}'),
    },
    invalid,
  ),
  mcp(
    "injection: __proto__ key in tool arguments",
    { tool: "todos_create", args: withProto('{"title": "x", "__proto__": {"admin": true}}') },
    { status: 400, rpcCode: -32602 },
  ),
  mcp(
    "injection: __proto__ key nested in tool arguments",
    {
      tool: "todos_create",
      args: withProto('{"title": "x", "tags": [{"__proto__": {"admin": true}}]}'),
    },
    { status: 400, rpcCode: -32602 },
  ),
  mcp(
    "injection: constructor key in tool arguments",
    { tool: "todos_create", args: { title: "x", constructor: { prototype: { admin: true } } } },
    toolInvalid,
  ),
  rest(
    "injection: dotted key in a body",
    { method: "POST", path: "/todos", body: { title: "x", "ownerId.$id": NOBODY_ID } },
    invalid,
  ),
  rest(
    "injection: operator-looking id in the path",
    { method: "GET", path: `/todos/${encodeURIComponent('{"$ne":null}')}` },
    { status: 404, code: "not_found" },
  ),

  // --- Mass assignment -----------------------------------------------------------------------
  ...(
    [
      ["ownerId", (fx: Fixtures) => fx.bob.userId],
      ["_id", () => NOBODY_ID],
      ["__v", () => 99],
      ["admin", () => true],
      ["createdAt", () => "2000-01-01T00:00:00.000Z"],
    ] as const
  ).flatMap(([field, value]): Case[] => [
    rest(
      `mass assignment: ${field} on create`,
      { method: "POST", path: "/todos", body: (fx) => ({ title: "mass", [field]: value(fx) }) },
      invalid,
    ),
    rest(
      `mass assignment: ${field} on update`,
      {
        method: "PATCH",
        path: (fx) => `/todos/${fx.aliceTodo}`,
        body: (fx) => ({ [field]: value(fx) }),
      },
      invalid,
    ),
    mcp(
      `mass assignment: ${field} on create`,
      { tool: "todos_create", args: (fx) => ({ title: "mass", [field]: value(fx) }) },
      toolInvalid,
    ),
    mcp(
      `mass assignment: ${field} on update`,
      { tool: "todos_update", args: (fx) => ({ id: fx.aliceTodo, [field]: value(fx) }) },
      toolInvalid,
    ),
  ]),
  mcp(
    "mass assignment: excluded field internalNote on create",
    { tool: "todos_create", args: { title: "mass", internalNote: "x" } },
    toolInvalid,
  ),
  mcp(
    "mass assignment: excluded field internalNote on update",
    { tool: "todos_update", args: (fx) => ({ id: fx.aliceTodo, internalNote: "x" }) },
    toolInvalid,
  ),
  rest(
    "mass assignment: admin at signup",
    {
      method: "POST",
      path: "/auth/signup",
      body: { email: "mallory@example.com", password: "correct horse battery", admin: true },
      as: "none",
    },
    invalid,
  ),
  rest(
    "mass assignment: passwordHash at signup",
    {
      method: "POST",
      path: "/auth/signup",
      body: {
        email: "mallory2@example.com",
        password: "correct horse battery",
        passwordHash: "$2a$04$x",
      },
      as: "none",
    },
    invalid,
  ),

  // --- Leaks ---------------------------------------------------------------------------------
  rest(
    "leak: populate of an undeclared path (list)",
    { method: "GET", path: "/todos", query: { populate: "tags" } },
    invalid,
  ),
  rest(
    "leak: populate of an undeclared path (read)",
    { method: "GET", path: (fx) => `/todos/${fx.aliceTodo}`, query: { populate: "internalNote" } },
    invalid,
  ),
  mcp(
    "leak: populate of an undeclared path",
    { tool: "todos_read", args: (fx) => ({ id: fx.aliceTodo, populate: ["tags"] }) },
    toolInvalid,
  ),
  rest(
    "leak: filter on a hidden field (select:false passwordHash) answers like a nonexistent field",
    { method: "GET", path: "/users", query: { passwordHash: { $regex: "^\\$2" } } },
    {
      ...invalid,
      sameAs: {
        send: { method: "GET", path: "/users", query: { nopeField: { $regex: "^\\$2" } } },
        names: ["passwordHash", "nopeField"],
      },
    },
  ),
  rest(
    "leak: equality filter on a hidden field answers like a nonexistent field",
    { method: "GET", path: "/users", query: { passwordHash: "x" } },
    {
      ...invalid,
      sameAs: {
        send: { method: "GET", path: "/users", query: { nopeField: "x" } },
        names: ["passwordHash", "nopeField"],
      },
    },
  ),
  rest(
    "leak: sort on a hidden field answers like a nonexistent field",
    { method: "GET", path: "/users", query: { sort: "-passwordHash" } },
    {
      ...invalid,
      sameAs: {
        send: { method: "GET", path: "/users", query: { sort: "-nopeField" } },
        names: ["passwordHash", "nopeField"],
      },
    },
  ),
  mcp(
    "leak: filter on an excluded field (internalNote) answers like a nonexistent field",
    { tool: "todos_list", args: { filter: { internalNote: { $regex: "^ALICE" } } } },
    {
      ...toolInvalid,
      sameAs: {
        send: { tool: "todos_list", args: { filter: { nopeNotes: { $regex: "^ALICE" } } } },
        names: ["internalNote", "nopeNotes"],
      },
    },
  ),
  mcp(
    "leak: sort on an excluded field answers like a nonexistent field",
    { tool: "todos_list", args: { sort: "internalNote" } },
    {
      ...toolInvalid,
      sameAs: {
        send: { tool: "todos_list", args: { sort: "nopeNotes" } },
        names: ["internalNote", "nopeNotes"],
      },
    },
  ),

  // --- Credentials ---------------------------------------------------------------------------
  rest(
    "credentials: another user's token reads Bob's todo",
    { method: "GET", path: (fx) => `/todos/${fx.bobTodo}` },
    { status: 404, code: "not_found" },
  ),
  rest(
    "credentials: another user's token updates Bob's todo",
    { method: "PATCH", path: (fx) => `/todos/${fx.bobTodo}`, body: { title: "pwned" } },
    { status: 404, code: "not_found" },
  ),
  rest(
    "credentials: another user's token deletes Bob's todo",
    { method: "DELETE", path: (fx) => `/todos/${fx.bobTodo}` },
    { status: 404, code: "not_found" },
  ),
  rest(
    "credentials: another user's token filters on Bob's ownerId (scoped to nothing)",
    { method: "GET", path: "/todos", query: { ownerId: "BOB" } },
    {
      status: 200,
      check: (body) =>
        assert.ok((body.data as Array<{ title: string }>).every((t) => t.title !== "bob's")),
    },
  ),
  mcp(
    "credentials: another user's token reads Bob's todo",
    { tool: "todos_read", args: (fx) => ({ id: fx.bobTodo }) },
    { status: 200, toolCode: "not_found" },
  ),
  mcp(
    "credentials: another user's token updates Bob's todo",
    { tool: "todos_update", args: (fx) => ({ id: fx.bobTodo, title: "pwned" }) },
    { status: 200, toolCode: "not_found" },
  ),
  mcp(
    "credentials: another user's token deletes Bob's todo",
    { tool: "todos_delete", args: (fx) => ({ id: fx.bobTodo }) },
    { status: 200, toolCode: "not_found" },
  ),
  ...(["expired", "forged", "algNone", "refreshAsAccess"] as const).flatMap((as): Case[] => [
    rest(
      `credentials: ${as} token`,
      { method: "GET", path: "/todos", as },
      { status: 401, code: "unauthenticated" },
    ),
    rest(
      `credentials: ${as} token on a write`,
      { method: "POST", path: "/todos", body: { title: "x" }, as },
      { status: 401, code: "unauthenticated" },
    ),
    mcp(
      `credentials: ${as} token (tools/list)`,
      { rpc: { jsonrpc: "2.0", id: 1, method: "tools/list" }, as },
      { status: 401 },
    ),
    mcp(
      `credentials: ${as} token (tools/call)`,
      { tool: "todos_create", args: { title: "x" }, as },
      { status: 401 },
    ),
  ]),
  mcp(
    "credentials: no token at all",
    { tool: "todos_list", args: {}, as: "none" },
    { status: 401 },
  ),
  // --- Text that no string field may hold: NUL, lone surrogates (issue 24.6) --------------
  ...textCases(),
];

/** The error names the field: `fields[path]` on REST, the same inside a tool's error. */
function namesField(path: string) {
  return (body: Record<string, unknown>) => {
    const result = body.result as { content?: Array<{ text?: string }> } | undefined;
    const text = result?.content?.[0]?.text;
    const error = text ? JSON.parse(text.slice(text.indexOf("\n") + 1)).error : body;
    assert.match(String(error.fields?.[path]), /NUL|surrogate/, JSON.stringify(error));
  };
}

function textCases(): Case[] {
  const bad: Record<string, string> = { NUL: "a\u0000b", "lone surrogate": "a\ud800b" };
  return Object.entries(bad).flatMap(([name, value]) => [
    rest(
      `text: ${name} in a body field (create)`,
      { method: "POST", path: "/todos", body: { title: value } },
      { ...invalid, check: namesField("title") },
    ),
    rest(
      `text: ${name} in a nested body field (update)`,
      { method: "PATCH", path: (fx) => `/todos/${fx.aliceTodo}`, body: { tags: ["ok", value] } },
      { ...invalid, check: namesField("tags.1") },
    ),
    // A URL carries UTF-8, which cannot spell a lone surrogate: only NUL (%00) gets that far.
    ...(name === "NUL"
      ? [
          rest(
            `text: ${name} in a filter`,
            { method: "GET", path: "/todos", query: { title: value } },
            { ...invalid, check: namesField("title") },
          ),
        ]
      : []),
    mcp(
      `text: ${name} in a tool argument (create)`,
      { tool: "todos_create", args: { title: value } },
      { ...toolInvalid, check: namesField("title") },
    ),
    mcp(
      `text: ${name} in a tool filter`,
      { tool: "todos_list", args: { filter: { title: value } } },
      { ...toolInvalid, check: namesField("filter.title") },
    ),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Running a case
// ---------------------------------------------------------------------------------------------

function resolve<T>(value: Dynamic<T>, fx: Fixtures): T {
  return typeof value === "function" ? (value as (fx: Fixtures) => T)(fx) : value;
}

function b64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

function tokenFor(as: Credential, fx: Fixtures): string | undefined {
  const sub = fx.alice.userId;
  switch (as) {
    case "alice":
      return fx.alice.token;
    case "none":
      return undefined;
    case "expired":
      return jwt.sign({ typ: "access" }, JWT_SECRET, {
        algorithm: "HS256",
        subject: sub,
        expiresIn: -60,
      });
    case "forged":
      return jwt.sign({ typ: "access" }, "not-the-server-secret-but-long-enough", {
        algorithm: "HS256",
        subject: sub,
        expiresIn: 600,
      });
    case "algNone":
      return `${b64url({ alg: "none", typ: "JWT" })}.${b64url({ typ: "access", sub, exp: Math.floor(Date.now() / 1000) + 600 })}.`;
    case "refreshAsAccess":
      return fx.alice.refreshToken;
  }
}

interface Outcome {
  status: number;
  text: string;
  body: Record<string, unknown>;
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * REST cases go through a server wired like `TerrenoApp.start()`'s, so what Node answers
 * before Express does (a header overflow) is the framework's answer, not a bare socket reset.
 */
const servers = new WeakMap<Express, Server>();
function serverFor(app: Express): Server {
  let server = servers.get(app);
  if (!server) {
    server = createServer(app);
    answerClientErrorsAsJson(server);
    servers.set(app, server);
  }
  return server;
}

async function sendRest(app: Express, send: RestSend, fx: Fixtures): Promise<Outcome> {
  const query =
    send.query === undefined
      ? ""
      : `?${typeof send.query === "string" ? send.query : qs.stringify(send.query)}`;
  const url = `${resolve(send.path, fx)}${query.replaceAll("BOB", fx.bob.userId)}`;
  const method = send.method.toLowerCase() as "get" | "post" | "patch" | "delete";
  let req = request(serverFor(app))[method](url);
  const token = tokenFor(send.as ?? "alice", fx);
  if (token) req = req.set("Authorization", `Bearer ${token}`);
  if (send.raw !== undefined) {
    req = req.set("Content-Type", send.contentType ?? "application/json").send(send.raw);
  } else if (send.body !== undefined) {
    req = req
      .set("Content-Type", send.contentType ?? "application/json")
      .send(JSON.stringify(resolve(send.body, fx)));
  }
  const res = await req;
  return { status: res.status, text: res.text, body: parse(res.text) };
}

async function sendMcp(app: Express, send: McpSend, fx: Fixtures): Promise<Outcome> {
  let payload: string;
  if (send.raw !== undefined) payload = send.raw;
  else if (send.rpc !== undefined) payload = JSON.stringify(send.rpc);
  else {
    payload = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: send.tool, arguments: resolve(send.args, fx) },
    });
  }
  let req = request(app)
    .post("/mcp")
    .set("Content-Type", send.contentType ?? "application/json");
  if (send.accept !== null) req = req.set("Accept", send.accept ?? ACCEPT);
  const token = tokenFor(send.as ?? "alice", fx);
  if (token) req = req.set("Authorization", `Bearer ${token}`);
  const res = await req.send(payload);
  return { status: res.status, text: res.text, body: parse(res.text) };
}

function send(app: Express, c: Case, fx: Fixtures): Promise<Outcome> {
  return c.surface === "rest" ? sendRest(app, c.send, fx) : sendMcp(app, c.send, fx);
}

/** What a no-oracle comparison looks at: the error, with the probed field's name neutralised. */
function comparable(outcome: Outcome, name: string): string {
  const result = outcome.body.result as { content?: Array<{ text?: string }> } | undefined;
  const text = result?.content?.[0]?.text ?? outcome.text;
  return `${outcome.status} ${text.replaceAll(name, "<field>")}`;
}

async function counts(): Promise<string> {
  const [todos, foods, users] = await Promise.all([
    Todo.countDocuments(),
    Food.countDocuments(),
    User.countDocuments(),
  ]);
  return `todos=${todos} foods=${foods} users=${users}`;
}

function assertNoHiddenValue(c: Case, outcome: Outcome, hashes: string[]): void {
  const { text } = outcome;
  assert.ok(!text.includes(BOB_NOTE), "another user's internalNote leaked");
  for (const hash of hashes) assert.ok(!text.includes(hash), "a password hash leaked");
  assert.doesNotMatch(text, /\$2[aby]\$\d\d\$/, "something shaped like a bcrypt hash leaked");
  // REST shows Alice her own internalNote on success; MCP excludes it, and no error carries it.
  if (c.surface === "mcp" || outcome.status >= 400) {
    assert.ok(!text.includes(ALICE_NOTE), "an excluded internalNote leaked");
  }
}

function assertExpected(c: Case, outcome: Outcome): void {
  const { expect } = c;
  const context = `${outcome.status} ${outcome.text.slice(0, 400)}`;
  const statuses = Array.isArray(expect.status) ? expect.status : [expect.status];
  assert.ok(statuses.includes(outcome.status), `status ${context}`);
  assert.ok(outcome.status < 500, context);
  if (expect.code) {
    assert.equal(outcome.body.code, expect.code, context);
    assert.equal(outcome.body.status, outcome.status, context);
    assert.equal(typeof outcome.body.detail, "string", context);
  }
  if (expect.rpcCode !== undefined) {
    const error = outcome.body.error as { code?: number } | undefined;
    assert.equal(error?.code, expect.rpcCode, context);
  }
  if (expect.toolCode) {
    const result = outcome.body.result as
      | { isError?: boolean; content?: Array<{ text?: string }> }
      | undefined;
    assert.equal(result?.isError, true, context);
    const text = result?.content?.[0]?.text ?? "";
    assert.ok(text.startsWith(`${expect.toolCode}:`), context);
    const body = JSON.parse(text.slice(text.indexOf("\n") + 1)).error;
    assert.equal(body.code, expect.toolCode, context);
  }
  if (c.surface === "mcp" && outcome.status < 300 && !expect.check) {
    assert.ok(outcome.body.error || expect.toolCode, `an MCP case must fail: ${context}`);
  }
  expect.check?.(outcome.body);
}

describe("bad input corpus: REST and MCP refuse clearly, write nothing, leak nothing", () => {
  let app: Express;
  let fx: Fixtures;
  let hashes: string[];

  before(async () => {
    app = restTerreno({ jsonLimit: "20kb" })
      // A router over users, to probe a select:false field (passwordHash) on REST.
      .register(
        modelRouter(User, {
          permissions: { list: [IsAuthenticated] },
          queryFields: ["name", "passwordHash"],
        }),
      )
      .build();
    const alice = await signUp(app, "alice");
    const bob = await signUp(app, "bob");
    const aliceTodo = await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: `${"a".repeat(199)}!`, internalNote: ALICE_NOTE })
      .expect(201);
    await request(app)
      .post("/todos")
      .set(bearer(alice))
      .send({ title: "long note", internalNote: LONG_A })
      .expect(201);
    const bobTodo = await request(app)
      .post("/todos")
      .set(bearer(bob))
      .send({ title: "bob's", internalNote: BOB_NOTE })
      .expect(201);
    const food = await request(app)
      .post("/foods")
      .set(bearer(bob))
      .send({ name: "apple" })
      .expect(201);
    fx = {
      alice,
      bob,
      aliceTodo: aliceTodo.body.data.id,
      bobTodo: bobTodo.body.data.id,
      foodId: food.body.data.id,
    };
    const users = await User.find().select("+passwordHash").lean();
    hashes = users.map((u) => String((u as { passwordHash?: string }).passwordHash));
    assert.equal(hashes.length, 2);
  });

  test("the corpus covers every threat family on both surfaces", () => {
    for (const family of [
      "malformed",
      "protocol",
      "paging",
      "injection",
      "mass assignment",
      "leak",
      "credentials",
      "text",
    ]) {
      // JSON-RPC protocol errors exist only on MCP.
      for (const surface of family === "protocol" ? ["mcp"] : ["rest", "mcp"]) {
        assert.ok(
          CASES.some((c) => c.surface === surface && c.threat.startsWith(`${family}:`)),
          `${family} on ${surface}`,
        );
      }
    }
    assert.ok(FILTER_FIELDS.length >= 7 && BODY_FIELDS.length >= 10, "fields come from the model");
  });

  for (const c of CASES) {
    // The regex cases must come back at all: the test timeout bounds them (list maxTimeMS is 5 s).
    test(`[${c.surface}] ${c.threat}`, { timeout: c.slow ? 20_000 : undefined }, async () => {
      const before = await counts();
      const outcome = await send(app, c, fx);
      assertExpected(c, outcome);
      assertNoHiddenValue(c, outcome, hashes);
      if (c.expect.sameAs) {
        const [hiddenName, unknownName] = c.expect.sameAs.names;
        const twin = await send(app, { ...c, send: c.expect.sameAs.send } as Case, fx);
        assert.equal(
          comparable(outcome, hiddenName),
          comparable(twin, unknownName),
          "a hidden field must answer exactly like a nonexistent one",
        );
      }
      assert.equal(await counts(), before, "nothing was written");
    });
  }

  test("after the corpus: Bob's todo is untouched and nobody became admin", async () => {
    const bobs = (await Todo.findById(fx.bobTodo).lean()) as {
      title: string;
      deleted: boolean;
    } | null;
    assert.equal(bobs?.title, "bob's");
    assert.equal(bobs?.deleted, false);
    assert.equal(await User.countDocuments({ admin: true }), 0);
    const alices = (await Todo.findById(fx.aliceTodo).lean()) as { ownerId: unknown } | null;
    assert.equal(String(alices?.ownerId), fx.alice.userId);
  });
});
