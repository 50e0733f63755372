/**
 * Child process: the floor. A bare Express 5 route on the MongoDB driver (no Mongoose, no
 * framework) doing the same work as terreno-mcp's REST `GET /todos?limit=20` on the bench's todo
 * model, written by hand the way a careful developer would without a framework:
 *   - the Bearer JWT checked with jsonwebtoken, HS256 pinned, access tokens only (`typ`), the
 *     user id from `sub`, as terreno-mcp issues them (same secret). The HMAC key is derived once
 *     (jsonwebtoken given the secret string would first try it as a public key on every request,
 *     a known cost that terreno-mcp avoids too: see bench/FIXES.md);
 *   - the user loaded by id; unknown or disabled users get 401;
 *   - the owner filter (`ownerId` = the caller, none for admins), then find + count with it in
 *     parallel, sorted `-createdAt` (then `_id`), `limit` (default 20, at most 50) and `page`;
 *   - the owner populated with its name (one `$in` query, as Mongoose's populate does);
 *   - the same JSON shape: `{data, page, limit, total, more}`, `id` instead of `_id`, ISO dates,
 *     no `__v`.
 * It reuses the process and IPC plumbing of the other servers and nothing of src/.
 */
import { createSecretKey } from "node:crypto";
import express, { type Request, type Response } from "express";
import jwt from "jsonwebtoken";
import { type Document, MongoClient, ObjectId } from "mongodb";
import { benchEnv, serveApps } from "../lib/serve.js";

const env = benchEnv("floor.ts", ["MONGODB_URI", "BENCH_JWT_SECRET"]);

const key = createSecretKey(Buffer.from(env.BENCH_JWT_SECRET));
const client = new MongoClient(env.MONGODB_URI, { serverSelectionTimeoutMS: 5000 });
await client.connect();
const db = client.db();
const users = db.collection("users");
const todos = db.collection("todos");

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 50;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function callerId(req: Request): ObjectId {
  const header = req.headers.authorization;
  const token = header?.startsWith("Bearer ") ? header.slice(7) : undefined;
  if (!token) throw new HttpError(401, "unauthenticated", "Authentication required.");
  let payload: string | jwt.JwtPayload;
  try {
    payload = jwt.verify(token, key, { algorithms: ["HS256"] });
  } catch {
    throw new HttpError(401, "unauthenticated", "The token is invalid.");
  }
  if (
    typeof payload !== "object" ||
    payload.typ !== "access" ||
    !ObjectId.isValid(payload.sub ?? "")
  ) {
    throw new HttpError(401, "unauthenticated", "The token is invalid.");
  }
  return new ObjectId(payload.sub);
}

function positiveInteger(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || !/^\d+$/.test(value) || Number(value) < 1) {
    throw new HttpError(400, "validation_failed", "Invalid paging.");
  }
  return Number(value);
}

/** Plain JSON with `id` for `_id`, ObjectIds as hex and dates as ISO strings, no `__v`. */
function toJson(value: unknown): unknown {
  if (value instanceof ObjectId) return value.toHexString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value !== "object" || value === null) return value;
  const source = value as Document;
  const out: Record<string, unknown> = {};
  if (source._id !== undefined && source._id !== null) out.id = toJson(source._id);
  for (const key of Object.keys(source)) {
    if (key === "_id" || key === "__v" || key === "id") continue;
    out[key] = toJson(source[key]);
  }
  return out;
}

const app = express();
app.disable("x-powered-by");
app.get("/todos", async (req: Request, res: Response) => {
  try {
    const userId = callerId(req);
    const user = await users.findOne({ _id: userId });
    if (!user || user.disabled === true) {
      throw new HttpError(401, "unauthenticated", "The user no longer exists.");
    }
    const limit = Math.min(positiveInteger(req.query.limit, DEFAULT_LIMIT), MAX_LIMIT);
    const page = positiveInteger(req.query.page, 1);
    const filter: Document = user.admin === true ? {} : { ownerId: userId };
    const [docs, total] = await Promise.all([
      todos
        .find(filter)
        .sort({ createdAt: -1, _id: 1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .maxTimeMS(5000)
        .toArray(),
      todos.countDocuments(filter, { maxTimeMS: 5000 }),
    ]);
    const ownerIds = [...new Set(docs.map((doc) => String(doc.ownerId)))].map(
      (id) => new ObjectId(id),
    );
    const owners = ownerIds.length
      ? await users.find({ _id: { $in: ownerIds } }, { projection: { name: 1 } }).toArray()
      : [];
    const ownerById = new Map(owners.map((owner) => [String(owner._id), owner]));
    const data = docs.map((doc) =>
      toJson({ ...doc, ownerId: ownerById.get(String(doc.ownerId)) ?? doc.ownerId }),
    );
    res.json({ data, page, limit, total, more: (page - 1) * limit + docs.length < total });
  } catch (error) {
    if (error instanceof HttpError) {
      res.status(error.status).json({ error: { code: error.code, message: error.message } });
    } else {
      res.status(500).json({ error: { code: "internal", message: "Internal error." } });
    }
  }
});

await serveApps({ main: app }, () => client.close());
