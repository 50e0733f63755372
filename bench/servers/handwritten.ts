/**
 * Child process for bench/prod.ts (issue #38): the floors a user would write on the same
 * libraries as terreno-mcp, without it. `BENCH_FLOOR` picks one per child:
 *   - `rest` (F1): Express 5 + Mongoose the way the Mongoose docs teach: `find().sort().limit()`,
 *     `.populate("ownerId", "name")`, `countDocuments`, `res.json` of the documents with a
 *     `toJSON` transform (`id` for `_id`, no `__v`);
 *   - `mcp` (F2): the MCP SDK v2's own `createMcpHandler` (both eras, its defaults) with an
 *     `McpServer` and one `registerTool("todos_list", …)` doing F1's query, behind the same
 *     Bearer check, mounted with `toNodeHandler`.
 * Both do the same work as terreno-mcp's `GET /todos?limit=20` and `todos_list {limit: 20}` on
 * the bench's todo model: jsonwebtoken HS256 with the key derived once, access tokens only, the
 * user loaded by id (unknown or disabled: 401), the owner filter (none for admins), sort
 * `-createdAt`, limit (default 20, at most 50) and page, the owner populated with its name, and
 * `{data, page, limit, total, more}`. Nothing of src/ here: their own schemas over the same
 * collections.
 */
import { createSecretKey } from "node:crypto";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import express, { type NextFunction, type Request, type Response } from "express";
import jwt from "jsonwebtoken";
import mongoose, { Schema, type Types } from "mongoose";
import { z } from "zod";
import { benchEnv, serveApps } from "../lib/serve.js";

const env = benchEnv("handwritten.ts", ["MONGODB_URI", "BENCH_JWT_SECRET", "BENCH_FLOOR"]);
if (env.BENCH_FLOOR !== "rest" && env.BENCH_FLOOR !== "mcp") {
  throw new Error(`handwritten.ts: BENCH_FLOOR must be rest or mcp, not ${env.BENCH_FLOOR}`);
}

const key = createSecretKey(Buffer.from(env.BENCH_JWT_SECRET));
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 50;

/** What the docs show for an API: `id` instead of `_id`, no version key. */
const toJSON = {
  versionKey: false,
  transform: (_doc: unknown, ret: Record<string, unknown>) => {
    ret.id = String(ret._id);
    delete ret._id;
    return ret;
  },
};

const User = mongoose.model(
  "User",
  new Schema(
    { name: String, admin: Boolean, disabled: Boolean },
    { timestamps: true, toJSON, collection: "users" },
  ),
);
const Todo = mongoose.model(
  "Todo",
  new Schema(
    {
      title: { type: String, required: true },
      completed: { type: Boolean, default: false },
      dueDate: Date,
      tags: [String],
      ownerId: { type: Schema.Types.ObjectId, ref: "User", required: true, index: true },
    },
    { timestamps: true, toJSON, collection: "todos" },
  ),
);

class Unauthenticated extends Error {}

interface Caller {
  id: Types.ObjectId;
  admin: boolean;
}

/** The Bearer token checked and its user loaded; throws Unauthenticated otherwise. */
async function authenticate(header: string | undefined): Promise<Caller> {
  const token = header?.startsWith("Bearer ") ? header.slice(7) : undefined;
  if (!token) throw new Unauthenticated("Authentication required.");
  let payload: string | jwt.JwtPayload;
  try {
    payload = jwt.verify(token, key, { algorithms: ["HS256"] });
  } catch {
    throw new Unauthenticated("The token is invalid.");
  }
  if (typeof payload !== "object" || payload.typ !== "access" || !payload.sub) {
    throw new Unauthenticated("The token is invalid.");
  }
  if (!mongoose.isValidObjectId(payload.sub)) throw new Unauthenticated("The token is invalid.");
  const user = await User.findById(payload.sub);
  if (!user || user.disabled === true) throw new Unauthenticated("The user no longer exists.");
  return { id: user._id, admin: user.admin === true };
}

/** The list both floors serve. */
async function listTodos(caller: Caller, limit: number, page: number) {
  const filter = caller.admin ? {} : { ownerId: caller.id };
  const [docs, total] = await Promise.all([
    Todo.find(filter)
      .sort({ createdAt: -1, _id: 1 })
      .skip((page - 1) * limit)
      .limit(limit)
      .maxTimeMS(5000)
      .populate("ownerId", "name"),
    Todo.countDocuments(filter).maxTimeMS(5000),
  ]);
  return { data: docs, page, limit, total, more: (page - 1) * limit + docs.length < total };
}

function restApp() {
  const app = express();
  app.disable("x-powered-by");
  const paging = (value: unknown, fallback: number) => {
    if (value === undefined) return fallback;
    return typeof value === "string" && /^\d+$/.test(value) && Number(value) >= 1
      ? Number(value)
      : undefined;
  };
  app.get("/todos", async (req: Request, res: Response) => {
    try {
      const caller = await authenticate(req.headers.authorization);
      const limit = paging(req.query.limit, DEFAULT_LIMIT);
      const page = paging(req.query.page, 1);
      if (limit === undefined || page === undefined) {
        res.status(400).json({ error: { code: "validation_failed", message: "Invalid paging." } });
        return;
      }
      res.json(await listTodos(caller, Math.min(limit, MAX_LIMIT), page));
    } catch (error) {
      if (error instanceof Unauthenticated) {
        res.status(401).json({ error: { code: "unauthenticated", message: error.message } });
      } else {
        res.status(500).json({ error: { code: "internal", message: "Internal error." } });
      }
    }
  });
  return app;
}

function mcpApp() {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "handwritten-todos", version: "1.0.0" });
    server.registerTool(
      "todos_list",
      {
        description: "List your todos, newest first.",
        inputSchema: z.object({
          limit: z.number().int().min(1).max(MAX_LIMIT).optional(),
          page: z.number().int().min(1).optional(),
        }),
      },
      async ({ limit, page }, ctx) => {
        const caller = ctx.http?.authInfo?.extra?.caller as Caller;
        const list = await listTodos(caller, limit ?? DEFAULT_LIMIT, page ?? 1);
        // The documents through their toJSON transform, as res.json would send them.
        const output = { ...list, data: list.data.map((doc) => doc.toJSON()) };
        return {
          content: [{ type: "text", text: JSON.stringify(output) }],
          structuredContent: output,
        };
      },
    );
    return server;
  });
  const node = toNodeHandler(handler);
  const app = express();
  app.disable("x-powered-by");
  app.post(
    "/mcp",
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const caller = await authenticate(req.headers.authorization);
        const token = req.headers.authorization?.slice(7) ?? "";
        Object.assign(req, {
          auth: { token, clientId: String(caller.id), scopes: [], extra: { caller } },
        });
        next();
      } catch (error) {
        const status = error instanceof Unauthenticated ? 401 : 500;
        res.status(status).json({ error: { message: (error as Error).message } });
      }
    },
    express.json(),
    (req: Request, res: Response) => void node(req, res, req.body),
  );
  return app;
}

await mongoose.connect(env.MONGODB_URI, { serverSelectionTimeoutMS: 5000 });
await serveApps({ main: env.BENCH_FLOOR === "rest" ? restApp() : mcpApp() }, () =>
  mongoose.disconnect(),
);
