/**
 * Compile-time tests of the user type: the app declares its user fields once, by augmenting
 * `UserFields` (the example does, in example-backend/models/User.ts), and they reach
 * `ctx.user` in hooks, permissions, actions and tools. Checked by `npm run typecheck`.
 */
import "../../example-backend/models/User.js";
import { Todo } from "../../example-backend/models/Todo.js";
import {
  IsAuthenticated,
  modelRouter,
  type PermissionMethod,
  TerrenoApp,
  type User,
} from "../../src/index.js";

// Declared by the app: typed wherever a user appears.
export const greet = (user: User): string => `Hello ${user.name ?? user.email ?? user.id}`;

modelRouter(Todo, {
  permissions: { list: [IsAuthenticated] },
  preCreate: (body, ctx) => {
    const name: string | null | undefined = ctx.user?.name;
    // @ts-expect-error: `nickname` is no declared user field
    void ctx.user?.nickname;
    return { ...body, ownerId: ctx.user?.id, createdBy: name };
  },
});

// @ts-expect-error: `name` is a string, not a number
export const numericName: PermissionMethod = (_method, user) => user?.name === 3;

new TerrenoApp().tool("whoami_name", {
  description: "The caller's name.",
  handler: (ctx) => ({
    name: ctx.user?.name,
    // @ts-expect-error: `team` is no declared user field
    team: ctx.user?.team,
  }),
});
