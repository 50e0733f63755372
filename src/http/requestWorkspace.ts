/**
 * The workspace an HTTP request acted in, for the HTTP telemetry (src/ops/telemetry.ts), which
 * puts it on the request's span (`terreno.workspace.id`). Written by whoever resolves the call's
 * workspace (REST's request context, the chat), read once when the response ends: only a
 * workspace the call actually resolved, never the header as sent.
 */
import type { Request } from "express";

const workspaces = new WeakMap<Request, () => string | undefined>();

/** Records how to read `req`'s workspace when it ends; the last one recorded wins. */
export function setRequestWorkspace(req: Request, read: () => string | undefined): void {
  workspaces.set(req, read);
}

/** The workspace `req` acted in, when its call resolved one. */
export function requestWorkspaceOf(req: Request): string | undefined {
  return workspaces.get(req)?.();
}
