/**
 * Who may reach the chat's own data, in the framework's permission terms, so that the one
 * verdict decides (src/core/verdict.ts) and an unreadable conversation is a 404 as on every
 * model route: conversations are their owner's (admins pass, `IsOwner`), telemetry is admins'.
 */
import { IsAdmin, IsAuthenticated, IsOwner } from "../core/permissions.js";
import { defineResource } from "../core/resource.js";
import { callContext } from "../core/services.js";
import type { Permissions, RequestContext, User } from "../core/types.js";
import { STANDALONE_SERVICES } from "../tools/services.js";
import { ChatTelemetry, Conversation } from "./models.js";

/** The conversations' permissions: the REST routes (chatRoutes.ts) and `POST /chat` share them. */
export const conversationPermissions: Permissions = {
  list: [IsAuthenticated],
  read: [IsOwner],
  create: [IsAuthenticated],
  update: [IsOwner],
  delete: [IsOwner],
};

/** The Conversation model under those permissions, for the chat's reads outside its router. */
export const conversationResource = defineResource(Conversation, {
  permissions: conversationPermissions,
});

/** Telemetry rows: listed (aggregated) by admins only, through the same verdict. */
export const telemetryResource = defineResource(ChatTelemetry, {
  permissions: { list: [IsAdmin] },
});

/**
 * A chat route's call as the core judges it: an HTTP route, so REST's surface. The chat's own
 * records are read outside the app's routers: no audit observer, no other routers' fields.
 */
export function chatContext(user: User | undefined, operation: string): RequestContext {
  return callContext(STANDALONE_SERVICES, { user, transport: "rest", headers: {}, operation });
}
