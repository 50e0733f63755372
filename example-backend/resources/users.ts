/**
 * `/users`: admins only (IsAdmin), list and read, over REST and as the MCP tools users_list
 * and users_read. A caller who is not an admin gets 403 over REST and does not see the tools
 * at all: for them, users_list does not exist.
 *
 * What an admin sees: id, name, email, admin, disabled and the timestamps. Never the password
 * hash (`select: false` in authUserPlugin, hidden on every surface); refresh tokens and
 * personal access tokens live in their own collections, not on the user.
 */
import { IsAdmin, type ModelRouterOptions, modelRouter } from "../../src/index.js";
import { User } from "../models/User.js";

const userOptions: ModelRouterOptions<typeof User> = {
  // No create, update or delete: accounts come from /auth/signup.
  permissions: { list: [IsAdmin], read: [IsAdmin] },
  queryFields: ["email", "name", "admin", "disabled", "createdAt"],
  sort: "email",
  mcp: { methods: ["list", "read"] },
};

export const userRouter = () => modelRouter(User, userOptions);
