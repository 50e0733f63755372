/**
 * Which workspace a `POST /chat` turn acts in (an app with workspaces). A new conversation acts
 * in the one the request resolves to (`X-Workspace-Id`, else the bound token's, else the
 * caller's only one) and is stored with it. A continued conversation acts in the workspace it
 * was started in, with or without the header: its history holds that workspace's records, which
 * must neither reach another workspace's tools nor be acted on from there. A request naming
 * another workspace (header or bound token) is a 409, before anything is written.
 */
import { TerrenoError } from "../core/errors.js";
import type { User } from "../core/types.js";
import { WORKSPACE_HEADER, workspaceAccess } from "../core/workspace.js";
import type { ChatRequest } from "./chatAuth.js";
import type { ContinuedConversation } from "./chatStore.js";
import type { ChatApp } from "./types.js";

export interface ChatWorkspace {
  /** The workspace the turn's tools act in, as the X-Workspace-Id they are given. */
  workspaceId?: string;
  /** The workspace a conversation this turn starts is kept in. */
  store?: string;
}

export async function chatWorkspace(
  app: ChatApp,
  req: ChatRequest,
  user: User,
  existing: ContinuedConversation | undefined,
): Promise<ChatWorkspace> {
  const header = req.get(WORKSPACE_HEADER)?.trim() || undefined;
  const started = existing?.workspaceId;
  if (started) {
    const asked = header ?? user.boundWorkspaceId;
    if (asked && asked !== started) {
      throw new TerrenoError(
        "conflict",
        `This conversation was started in workspace ${started} and continues only there: send X-Workspace-Id: ${started} (or no header) with a credential that may act there, or start a new conversation in the other workspace.`,
      );
    }
    return { workspaceId: started };
  }
  const directory = app.services.workspaces;
  if (!directory || existing) return header ? { workspaceId: header } : {};
  const current = await workspaceAccess(directory, {
    user,
    headers: header ? { [WORKSPACE_HEADER]: header } : {},
  }).peek();
  return { ...(header ? { workspaceId: header } : {}), ...(current ? { store: current.id } : {}) };
}
