/** The app under test for the REST suites: owned Todos and shared Foods with JWT auth. */
import type { Express } from "express";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import type { ModelRouterOptions } from "../../src/core/crudOptions.js";
import { IsAuthenticated, IsOwner, OwnerQueryFilter } from "../../src/core/permissions.js";
import type { PlainObject, RequestContext } from "../../src/core/types.js";
import type { LoginLockoutOptions } from "../../src/ops/loginLockout.js";
import type { TerrenoAppOptions } from "../../src/plugin/options.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import { Food, Todo, User } from "./models.js";
import { OWNER_ONLY } from "./permissions.js";

export const JWT_SECRET = "test-secret-that-is-long-enough-for-hs256";

export const hookCalls: string[] = [];

type TodoOptions = ModelRouterOptions<typeof Todo>;

export function todoOptions(overrides: Partial<TodoOptions> = {}): TodoOptions {
  return {
    permissions: OWNER_ONLY,
    queryFields: ["title", "completed", "priority", "dueDate", "tags", "ownerId", "internalNote"],
    queryFilter: OwnerQueryFilter,
    readOnlyFields: ["ownerId"],
    sort: "-createdAt",
    defaultLimit: 10,
    maxLimit: 25,
    populatePaths: [{ path: "ownerId", fields: ["name", "passwordHash"] }],
    preCreate: (body: PlainObject, req: RequestContext) => {
      hookCalls.push(`preCreate:${req.transport}`);
      if (body.title === "forbidden by hook") return null;
      return { ...body, ownerId: req.user?.id };
    },
    postCreate: () => {
      hookCalls.push("postCreate");
    },
    preUpdate: (body) => (body.title === "forbidden by hook" ? null : body),
    postUpdate: (_doc, _body, _req, prev) => {
      hookCalls.push(`postUpdate:${String(prev.title)}`);
    },
    preDelete: (doc) => (doc.title === "undeletable" ? null : doc),
    postDelete: () => {
      hookCalls.push("postDelete");
    },
    mcp: {
      methods: ["list", "read", "create", "update", "delete"],
      excludeFields: ["internalNote"],
      maxLimit: 5,
    },
    ...overrides,
  };
}

type FoodOptions = ModelRouterOptions<typeof Food>;

export function foodOptions(overrides: Partial<FoodOptions> = {}): FoodOptions {
  return {
    permissions: {
      list: [IsAuthenticated],
      read: [IsAuthenticated],
      create: [IsAuthenticated],
      update: [IsOwner],
      delete: [],
    },
    queryFields: ["name", "calories", "eatenAt"],
    defaultQueryParams: {},
    populatePaths: [{ path: "ownerId", fields: ["name"] }],
    preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }),
    readOnlyFields: ["ownerId"],
    mcp: {},
    ...overrides,
  };
}

/**
 * The suites' app before build(): JWT auth, owned Todos (`todo` overrides their options) and
 * shared Foods. `options` add to its app options; register more before building.
 */
export function restTerreno(
  options: Omit<TerrenoAppOptions, "userModel"> = {},
  todo: Partial<TodoOptions> = {},
): TerrenoApp {
  return new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } }, ...options })
    .register(modelRouter(Todo, todoOptions(todo)))
    .register(modelRouter(Food, foodOptions()));
}

export function buildRestApp() {
  return restTerreno({ jsonLimit: "20kb" }).build();
}

/**
 * An app with no models whose only auth limit is the login lockout (no per-IP limit), trusting
 * X-Forwarded-For so a test can speak from many addresses.
 */
export function lockoutApp(lockout: LoginLockoutOptions): Express {
  const app = new TerrenoApp({
    userModel: User,
    auth: { jwt: { secret: JWT_SECRET } },
    rateLimit: { auth: { perIp: false, lockout } },
  }).build();
  app.set("trust proxy", true);
  return app;
}
