/**
 * Everything the contract cases run against: one app (Todo, Food and two contract-only
 * models), three signed-up users, and fixtures written straight to the database so that no
 * surface under test is needed to set a case up.
 */
import type { Express } from "express";
import mongoose, { Schema } from "mongoose";
import { z } from "zod";
import type { User as CallerUser } from "../../src/core/types.js";
import {
  type User as Caller,
  IsAuthenticated,
  IsOwner,
  modelRouter,
  OwnerQueryFilter,
  type PermissionMethod,
  type PlainObject,
  TerrenoApp,
  TerrenoError,
  toUser,
} from "../../src/index.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { type Listening, listen } from "../helpers/mcpClients.js";
import { Food, Todo, User } from "../helpers/models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "../helpers/restApp.js";
import { type ContractWorkspaces, registerNotes, seedWorkspaces } from "./workspaceWorld.js";

/** Set on every Todo by the server (preCreate and fixtures); tools must never show it. */
export const HIDDEN_NOTE = "CONTRACT-HIDDEN-NOTE-7f3a";
/** What the internal-error hooks throw; no client may ever see it. */
export const SECRET = "secret-123";
export const PLAIN_SECRET = "secret-456-plain-error";
/** Any bcrypt hash: the users' passwordHash (select: false) must never leave the server. */
export const BCRYPT = /\$2[aby]\$\d\d\$/;

const ALL_TOOL_METHODS = ["list", "read", "create", "update", "delete"] as const;
const todoTools = todoOptions().mcp;

// ---- Contract-only models -----------------------------------------------------------------

/** Write-only for callers: `read` is disabled, yet create populates the owner. */
const memoSchema = new Schema({
  text: { type: String, required: true },
  mood: { type: String, enum: ["happy", "sad"] },
  secret: { type: String, select: false },
  ownerId: { type: Schema.Types.ObjectId, ref: "User" },
});
export const Memo = mongoose.models.Memo ?? mongoose.model("Memo", memoSchema);

/** Its hooks fail with a server fault whose text must stay on the server. */
const gadgetSchema = new Schema({ name: { type: String, required: true } });
const Gadget = mongoose.models.Gadget ?? mongoose.model("Gadget", gadgetSchema);

/** Every kind of value a merge patch can reach: a map, a Mixed value, a subdocument, a nested object. */
const gizmoSchema = new Schema({
  name: { type: String, required: true },
  scores: { type: Map, of: Number },
  extra: Schema.Types.Mixed,
  part: new Schema({ label: String, size: Number }),
  spec: { code: { type: String, required: true, default: "A" }, note: String },
  ownerId: { type: Schema.Types.ObjectId, ref: "User" },
});
export const Gizmo = mongoose.models.Gizmo ?? mongoose.model("Gizmo", gizmoSchema);

/**
 * Issue #22's model, as a new app writes one: members (a ref inside an array of subdocuments)
 * populated by default and checked by a member rule, a top-level ref, an array of refs,
 * milestones with a required title, a Map, nested settings with defaults, an enum default.
 */
const projectSchema = new Schema({
  name: { type: String, required: true },
  members: [
    {
      user: { type: Schema.Types.ObjectId, ref: "User", required: true },
      role: { type: String, enum: ["editor", "viewer"], default: "viewer" },
    },
  ],
  lead: { type: Schema.Types.ObjectId, ref: "User" },
  reviewers: [{ type: Schema.Types.ObjectId, ref: "User" }],
  milestones: [{ title: { type: String, required: true }, done: Boolean, due: Date }],
  labels: { type: Map, of: String },
  settings: {
    visibility: { type: String, enum: ["private", "team", "public"], default: "private" },
    color: String,
  },
  status: { type: String, enum: ["draft", "active", "archived"], default: "draft" },
  summary: String,
});
const Project = mongoose.models.Project ?? mongoose.model("Project", projectSchema);

/** Pins one todo, populated with no field list: the todo leaves as Todo's own routers show it. */
const boardSchema = new Schema({
  name: { type: String, required: true },
  pinned: { type: Schema.Types.ObjectId, ref: "Todo" },
  ownerId: { type: Schema.Types.ObjectId, ref: "User" },
});
const Board = mongoose.models.Board ?? mongoose.model("Board", boardSchema);

/**
 * Issue #35's order, as a shop writes one: a price inside array items that only the server
 * sets (`readOnlyFields: ["lines.unitPriceCents"]`), a store fixed at creation (`immutable`,
 * also inside items), a map of read-only costs, and a cost only some callers may see
 * (`fields: {costCents: {read}}`).
 */
const invoiceSchema = new Schema({
  title: { type: String, required: true },
  store: { type: String, immutable: true },
  lines: [
    {
      sku: { type: String, required: true },
      qty: { type: Number, default: 1 },
      unitPriceCents: { type: Number, default: 0 },
      addedIn: { type: String, immutable: true },
    },
  ],
  /** Lines without ids: matched by position. */
  notes: [new Schema({ text: String, stamp: String }, { _id: false })],
  rates: { type: Map, of: new Schema({ label: String, cents: Number }, { _id: false }) },
  costCents: Number,
  ownerId: { type: Schema.Types.ObjectId, ref: "User" },
});
const Invoice = mongoose.models.Invoice ?? mongoose.model("Invoice", invoiceSchema);

/** Who may see an invoice's cost: filled with alice's id by createWorld. */
const COST_READERS = new Set<string>();
const seesCost: PermissionMethod = (_method, user) => Boolean(user && COST_READERS.has(user.id));

// ---- Hooks the cases observe ----------------------------------------------------------------

export interface HookCall {
  hook: "preUpdate" | "postUpdate";
  body: PlainObject;
  prev?: PlainObject;
}

/** Update hooks on /todos, in call order; a case empties it before the update it watches. */
export const UPDATE_HOOKS: HookCall[] = [];

/** A deep copy as JSON (ObjectIds as hex), so later changes to the objects do not show. */
const snapshot = (value: PlainObject): PlainObject => JSON.parse(JSON.stringify(value));

/** /shared: a scope that is itself an `$or`: the caller's todos, or anyone's `public` ones. */
const sharedScope = (user?: CallerUser) =>
  user ? { $or: [{ ownerId: user.id }, { tags: "public" }] } : null;

/** /open: the caller's todos, by default only those not completed or of priority 1. */
export const OPEN_DEFAULTS = { $or: [{ completed: false }, { priority: 1 }] };

/**
 * What every rule saw of a project's members (`user`: an id, or a populated document): the
 * member permission, the hooks, the queryFilter and the action, by where they were called.
 */
export const SHAPES_SEEN: Array<{ where: string; user: "id" | "document" | "none" }> = [];

function memberShape(where: string, doc: unknown): void {
  const members = (doc as { members?: Array<{ user?: unknown }> } | undefined)?.members;
  const user = members?.[0]?.user;
  SHAPES_SEEN.push({
    where,
    user: user === undefined ? "none" : user instanceof mongoose.Types.ObjectId ? "id" : "document",
  });
}

/** The rule issue #22 wrote: `String(m.user) === user.id`, true before any document is loaded. */
const isMember: PermissionMethod = (method, user, obj) => {
  if (obj === undefined) return Boolean(user);
  memberShape(`permission:${method}`, obj);
  const members = (obj as { members?: Array<{ user?: unknown }> }).members ?? [];
  return Boolean(user) && members.some((m) => String(m.user) === user?.id);
};

// ---- The app ------------------------------------------------------------------------------

function buildContractApp(): TerrenoApp {
  return new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    workspaces: true,
  })
    .tool("echo_closed", {
      description: "Echoes the keys it was given (unknown keys refused, the default).",
      input: z.object({ text: z.string(), nested: z.object({ n: z.number() }).optional() }),
      annotations: { readOnlyHint: true },
      handler: (_ctx, input) => ({ keys: Object.keys(input) }),
    })
    .tool("todo_peek", {
      description: "The caller's todo with this title, inside a plain object.",
      input: z.object({ title: z.string() }),
      annotations: { readOnlyHint: true },
      handler: async (ctx, input) => ({
        todo: await Todo.findOne({ title: input.title, ownerId: ctx.user?.id }),
      }),
    })
    .tool("echo_open", {
      description: "Echoes the keys it was given (unknown keys allowed).",
      input: z.looseObject({ text: z.string() }),
      allowUnknownKeys: true,
      annotations: { readOnlyHint: true },
      handler: (_ctx, input) => ({ keys: Object.keys(input) }),
    })
    .register(
      modelRouter(
        Todo,
        todoOptions({
          // The server writes the hidden note on every todo, so its absence from a tool's
          // output means it was stripped, not that it was never there.
          preCreate: (body: PlainObject, req) =>
            body.title === "forbidden by hook"
              ? null
              : { internalNote: HIDDEN_NOTE, ...body, ownerId: req.user?.id },
          preUpdate: (body) => {
            UPDATE_HOOKS.push({ hook: "preUpdate", body: snapshot(body) });
            return body.title === "forbidden by hook" ? null : body;
          },
          postUpdate: (_doc, body, _req, prev) => {
            UPDATE_HOOKS.push({
              hook: "postUpdate",
              body: snapshot(body),
              prev: snapshot(prev as unknown as PlainObject),
            });
          },
        }),
      ),
    )
    .register(
      "/shared",
      modelRouter(
        Todo,
        todoOptions({ queryFilter: sharedScope, mcp: { ...todoTools, toolPrefix: "shared" } }),
      ),
    )
    .register(
      "/open",
      modelRouter(
        Todo,
        todoOptions({
          defaultQueryParams: OPEN_DEFAULTS,
          mcp: { ...todoTools, toolPrefix: "open" },
        }),
      ),
    )
    .register(modelRouter(Food, foodOptions({ mcp: { methods: [...ALL_TOOL_METHODS] } })))
    .register(
      modelRouter(Memo, {
        permissions: { list: [IsAuthenticated], create: [IsAuthenticated], read: [] },
        queryFields: ["text", "mood", "secret"],
        populatePaths: [{ path: "ownerId", fields: ["name"] }],
        preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }),
        readOnlyFields: ["ownerId"],
        mcp: { methods: [...ALL_TOOL_METHODS] },
      }),
    )
    .register(
      modelRouter(Gadget, {
        permissions: {
          list: [IsAuthenticated],
          create: [IsAuthenticated],
          read: [IsAuthenticated],
        },
        preCreate: (body) => {
          if (body.name === "plain") throw new Error(PLAIN_SECRET);
          throw new TerrenoError("internal", SECRET);
        },
        mcp: { methods: ["list", "create"] },
      }),
    )
    .register(
      modelRouter(Gizmo, {
        permissions: {
          create: [IsAuthenticated],
          read: [IsOwner],
          update: [IsOwner],
        },
        preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }),
        readOnlyFields: ["ownerId"],
        mcp: { methods: ["create", "read", "update"] },
      }),
    )
    .register(
      modelRouter(Invoice, {
        permissions: {
          list: [IsAuthenticated],
          create: [IsAuthenticated],
          read: [IsOwner],
          update: [IsOwner],
        },
        queryFields: ["title", "store", "costCents"],
        queryFilter: OwnerQueryFilter,
        preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }),
        readOnlyFields: ["ownerId", "lines.unitPriceCents", "notes.stamp", "rates.$*.cents"],
        fields: { costCents: { read: [seesCost] } },
        mcp: { methods: ["list", "create", "read", "update"] },
      }),
    )
    .register(
      modelRouter(Board, {
        permissions: { create: [IsAuthenticated], read: [IsOwner] },
        populatePaths: [{ path: "pinned" }],
        preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }),
        readOnlyFields: ["ownerId"],
        mcp: { methods: ["create", "read"] },
      }),
    )
    .register(
      modelRouter(Project, {
        permissions: {
          list: [IsAuthenticated],
          read: [isMember],
          create: [IsAuthenticated],
          update: [isMember],
          delete: [isMember],
        },
        queryFields: ["name", "status", "settings.visibility", "members.user", "lead"],
        queryFilter: (user) => (user ? { "members.user": user.id } : null),
        populatePaths: [
          { path: "members.user", fields: ["name"] },
          { path: "lead", fields: ["name"] },
          { path: "reviewers", fields: ["name"] },
        ],
        postCreate: (doc) => memberShape("postCreate", doc),
        postUpdate: (doc, _body, _req, prev) => {
          memberShape("postUpdate", doc);
          memberShape("postUpdate prev", prev);
        },
        preDelete: (doc) => {
          memberShape("preDelete", doc);
          return doc;
        },
        postDelete: (doc) => memberShape("postDelete", doc),
        actions: {
          /** The project inside a plain object, beside a count: presented as a read is. */
          bundle: {
            scope: "collection",
            description: "The caller's project of this name, with a count.",
            input: z.object({ name: z.string() }),
            annotations: { readOnlyHint: true },
            permissions: [IsAuthenticated],
            handler: async (ctx, input) => {
              const name = (input as { name: string }).name;
              const found = await Project.find({ name, "members.user": ctx.user?.id });
              return { count: found.length, project: found[0], all: found };
            },
          },
          /** Unknown keys allowed (opted out); zod strips them before the handler. */
          tally: {
            scope: "collection",
            description: "Counts the keys it kept.",
            input: z.object({ name: z.string() }),
            allowUnknownKeys: true,
            annotations: { readOnlyHint: true },
            permissions: [IsAuthenticated],
            handler: (_ctx, input) => ({ keys: Object.keys(input as object) }),
          },
          rename: {
            scope: "instance",
            description: "Renames a project.",
            input: z.object({ name: z.string() }),
            permissions: [isMember],
            handler: async (_ctx, doc, input) => {
              memberShape("action", doc);
              const project = doc as mongoose.HydratedDocument<{ name: string }>;
              project.name = (input as { name: string }).name;
              await project.save();
              return project;
            },
          },
        },
        mcp: { methods: [...ALL_TOOL_METHODS] },
      }),
    );
}

// ---- Actors and fixtures ------------------------------------------------------------------

/** alice and bob own things; carol owns exactly the 12 paging todos; anon has no token. */
export type Actor = "alice" | "bob" | "carol" | "anon";
type NamedActor = Exclude<Actor, "anon">;

export interface Account extends TestUser {
  caller: Caller;
}

export interface World {
  app: TerrenoApp;
  express: Express;
  server: Listening;
  accounts: Record<NamedActor, Account>;
  /** Alpha (alice owner, carol viewer) and Beta (bob owner): workspaceWorld.ts. */
  workspaces: ContractWorkspaces;
  close(): Promise<void>;
}

/** Carol's todos: title tNN, priority (i % 5) + 1, completed when i % 3 === 0. */
export const CAROL_TODOS = Array.from({ length: 12 }, (_, i) => ({
  title: `t${String(i).padStart(2, "0")}`,
  priority: (i % 5) + 1,
  completed: i % 3 === 0,
  tags: [i % 2 === 0 ? "even" : "odd"],
}));

/** Foods every filter case can count on: only these names start with "ctr-". */
const CONTRACT_FOODS = [
  { name: "ctr-apple", calories: 52 },
  { name: "ctr-pizza", calories: 285 },
  { name: "ctr-bagel", calories: 250 },
  { name: "ctr-water", calories: 0 },
];

async function account(express: Express, name: NamedActor): Promise<Account> {
  const user = await signUp(express, name);
  const doc = await User.findById(user.userId);
  if (!doc) throw new Error(`user ${name} was not stored`);
  return { ...user, caller: toUser(doc) };
}

export async function createWorld(): Promise<World> {
  const app = registerNotes(buildContractApp());
  const express = app.build();
  const server = await listen(express);
  const accounts = {
    alice: await account(express, "alice"),
    bob: await account(express, "bob"),
    carol: await account(express, "carol"),
  };
  COST_READERS.add(accounts.alice.userId);
  for (const todo of CAROL_TODOS) {
    await Todo.create({ ...todo, ownerId: accounts.carol.userId, internalNote: HIDDEN_NOTE });
  }
  for (const food of CONTRACT_FOODS) {
    await Food.create({ ...food, ownerId: accounts.alice.userId });
  }
  const workspaces = await seedWorkspaces(app, {
    alice: accounts.alice.userId,
    bob: accounts.bob.userId,
    carol: accounts.carol.userId,
  });
  return {
    app,
    express,
    server,
    accounts,
    workspaces,
    close: () => server.close(),
  };
}

let fixtureCounter = 0;

/** A todo written directly to the database (never through a surface under test). */
export async function seedTodo(owner: Account, fields: PlainObject = {}): Promise<string> {
  fixtureCounter += 1;
  const doc = await Todo.create({
    title: `fixture ${fixtureCounter}`,
    internalNote: HIDDEN_NOTE,
    ownerId: owner.userId,
    ...fields,
  });
  return String(doc._id);
}

export async function seedFood(owner: Account, fields: PlainObject = {}): Promise<string> {
  fixtureCounter += 1;
  const doc = await Food.create({
    name: `fixture food ${fixtureCounter}`,
    ownerId: owner.userId,
    ...fields,
  });
  return String(doc._id);
}

export async function seedGizmo(owner: Account, fields: PlainObject = {}): Promise<string> {
  fixtureCounter += 1;
  const doc = await Gizmo.create({
    name: `fixture gizmo ${fixtureCounter}`,
    ownerId: owner.userId,
    ...fields,
  });
  return String(doc._id);
}

export async function seedProject(fields: PlainObject = {}): Promise<string> {
  fixtureCounter += 1;
  const doc = await Project.create({ name: `fixture project ${fixtureCounter}`, ...fields });
  return String(doc._id);
}

export async function storedProject(id: string): Promise<PlainObject | null> {
  return Project.findById(id).lean<PlainObject>();
}

export async function seedInvoice(owner: Account, fields: PlainObject = {}): Promise<string> {
  fixtureCounter += 1;
  const doc = await Invoice.create({
    title: `fixture invoice ${fixtureCounter}`,
    ownerId: owner.userId,
    ...fields,
  });
  return String(doc._id);
}

/** The stored invoice as plain JSON (ids as hex). */
export async function storedInvoice(id: string): Promise<PlainObject> {
  return JSON.parse(JSON.stringify(await Invoice.findById(id).lean<PlainObject>()));
}

export async function storedTodo(id: string): Promise<PlainObject | null> {
  return Todo.findById(id).lean<PlainObject>();
}

export async function storedFood(id: string): Promise<PlainObject | null> {
  return Food.findById(id).lean<PlainObject>();
}

/** An id no document has. */
export const MISSING_ID = "0123456789abcdef01234567";
