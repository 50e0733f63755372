/**
 * The REST side of the chat, for a page that lists and reopens chats: the caller's
 * conversations, their stored messages, and feedback on assistant messages. Conversations and
 * feedback are the framework's own modelRouter, so they get its permissions, filters, paging
 * and errors; everything here is owner-only (admins pass: `IsOwner`, chatAccess.ts).
 */
import type { Response, Router } from "express";
import mongoose from "mongoose";
import { notFound, TerrenoError, validationFailed } from "../core/errors.js";
import { IsAuthenticated, IsOwner, OwnerQueryFilter } from "../core/permissions.js";
import { modelView, presentDocument } from "../core/present.js";
import type { PlainObject, User } from "../core/types.js";
import type { AppContext } from "../plugin/types.js";
import { conversationPermissions } from "./chatAccess.js";
import { dropConversationRequests } from "./chatApprovals.js";
import type { ChatRequest } from "./chatAuth.js";
import { findOwnedConversation } from "./chatStore.js";
import { ChatFeedback, ChatMessage, Conversation } from "./models.js";
import { decodeParts } from "./storedParts.js";

/**
 * `/chat/conversations[/:id]`, the caller's own. `POST /chat` starts them; PATCH renames one
 * (`title` only: the rest is the chat's to set); DELETE takes its messages and feedback with it.
 */
export function conversationsRouter({ modelRouter }: Pick<AppContext, "modelRouter">): Router {
  return modelRouter(Conversation, {
    permissions: conversationPermissions,
    queryFilter: OwnerQueryFilter,
    queryFields: ["title"],
    // The chat's to set (chatTurns.ts, chatStore.ts): a client naming one gets a 400 naming it.
    readOnlyFields: [
      "ownerId",
      "clientId",
      "workspaceId",
      "activeStreamId",
      "stopStreamId",
      "createdAt",
      "updatedAt",
    ],
    sort: "-updatedAt",
    preCreate: (body, ctx) => ({ ...body, ownerId: ctx.user?.id }),
    preUpdate: (body) => {
      const extra = Object.keys(body).filter((key) => key !== "title");
      if (extra.length > 0) {
        throw validationFailed(
          "Only `title` can be changed.",
          Object.fromEntries(extra.map((key) => [key, "read-only"])),
        );
      }
      return body;
    },
    postDelete: async (doc) => {
      await ChatMessage.deleteMany({ conversationId: doc._id });
      await ChatFeedback.deleteMany({ conversationId: doc._id });
      await dropConversationRequests(String(doc._id));
    },
  });
}

/**
 * `/chat/feedback`: `{messageId, rating: "up"|"down", comment?}`; no update (an empty permission
 * list is a 405). `messageId` is the stored row's id or the UI message id; with `persist` it must
 * be one of the caller's messages, and the feedback is filed under that message's conversation.
 */
export function feedbackRouter(
  { modelRouter }: Pick<AppContext, "modelRouter">,
  persist: boolean,
): Router {
  return modelRouter(ChatFeedback, {
    permissions: {
      list: [IsAuthenticated],
      read: [IsOwner],
      create: [IsAuthenticated],
      update: [],
      delete: [IsOwner],
    },
    queryFilter: OwnerQueryFilter,
    queryFields: ["messageId", "rating", "conversationId"],
    readOnlyFields: ["ownerId", "conversationId"],
    sort: "-createdAt",
    preCreate: async (body, ctx) => {
      const user = ctx.user;
      if (!user) throw new TerrenoError("unauthenticated", "Sign in first.");
      const messageId = body.messageId;
      if (typeof messageId !== "string" || messageId.length === 0) {
        throw validationFailed("`messageId` is required.", { messageId: "required" });
      }
      if (body.rating !== "up" && body.rating !== "down") {
        throw validationFailed('`rating` must be "up" or "down".', { rating: "invalid" });
      }
      let conversationId: unknown;
      if (persist) {
        const byId = mongoose.isValidObjectId(messageId)
          ? [{ _id: messageId }, { messageId }]
          : [{ messageId }];
        const message = await ChatMessage.findOne({
          ownerId: user.id,
          $or: byId,
        }).lean<PlainObject>();
        if (!message) throw notFound("No such message.");
        conversationId = message.conversationId;
      }
      return { ...body, ownerId: user.id, ...(conversationId ? { conversationId } : {}) };
    },
  });
}

/**
 * `GET /chat/conversations/:id/messages`: the stored messages, oldest first, each as REST shows
 * any document (the ChatMessage model's view), with its parts decoded from their stored form.
 */
export async function listMessages(req: ChatRequest, res: Response): Promise<void> {
  const user = req.user as User;
  const id = String(req.params.id);
  await findOwnedConversation(user, id, "GET /chat/conversations/:id/messages");
  const rows = await ChatMessage.find({ conversationId: id })
    // The stored forms of the parts are hidden (`select: false`): loaded here to be decoded.
    .select("+partsJson +parts")
    .sort({ createdAt: 1, _id: 1 })
    .lean<PlainObject[]>();
  const view = modelView(ChatMessage, "rest");
  res.json({
    data: rows.map((row) => ({ ...presentDocument(view, row), parts: decodeParts(row) })),
  });
}
