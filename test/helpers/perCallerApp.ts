/** The app under test for the per-caller tool suites (test/ai and test/mcp perCallerTools). */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { TerrenoApp } from "../../src/app/TerrenoApp.js";
import { toUser } from "../../src/auth/userPlugin.js";
import { IsAdmin, IsAuthenticated, IsOwner } from "../../src/core/permissions.js";
import type { User as Caller, PermissionMethod } from "../../src/core/types.js";
import { modelRouter } from "../../src/rest/modelRouter.js";
import type { TestUser } from "./auth.js";
import { Food, Todo, User } from "./models.js";
import { foodOptions, JWT_SECRET, todoOptions } from "./restApp.js";

/** An admin check that answers later, as one reading the database would. */
const slowAdmin: PermissionMethod = async (_method, user) => {
  await sleep(1);
  return user?.admin === true;
};

/**
 * Todos (delete: admins only) and foods (every signed-in user); with `ledger`, also a "ledger"
 * of foods whose list and read need an async admin check.
 */
export function perCallerApp({ ledger }: { ledger: boolean }): TerrenoApp {
  const app = new TerrenoApp({ userModel: User, auth: { jwt: { secret: JWT_SECRET } } })
    .register(
      modelRouter(
        Todo,
        todoOptions({
          permissions: {
            list: [IsAuthenticated],
            read: [IsOwner],
            create: [IsAuthenticated],
            update: [IsOwner],
            delete: [IsAdmin],
          },
        }),
      ),
    )
    .register(modelRouter(Food, foodOptions()));
  if (ledger) {
    app.register(
      "/ledger",
      modelRouter(Food, {
        permissions: { list: [IsAuthenticated, slowAdmin], read: [slowAdmin] },
        mcp: { toolPrefix: "ledger" },
      }),
    );
  }
  return app;
}

/** The tools every signed-in caller of perCallerApp sees. */
export const EVERYONE = [
  "foods_list",
  "foods_read",
  "todos_create",
  "todos_list",
  "todos_read",
  "todos_update",
];

/** The `User` the permission checks see for a signed-up test user. */
export async function callerOf(user: TestUser): Promise<Caller> {
  const doc = await User.findById(user.userId);
  assert.ok(doc);
  return toUser(doc);
}
