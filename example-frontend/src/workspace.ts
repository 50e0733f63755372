/**
 * The workspace the page works in: its id, kept in localStorage so a reload stays there, and
 * sent as `X-Workspace-Id` on every API call (api.ts), so the projects panel and the chat's
 * tools act in it. A tiny store, so React re-renders when it changes.
 */
import { useSyncExternalStore } from "react";

const KEY = "terreno-example.workspace";
const listeners = new Set<() => void>();

function read(): string | undefined {
  try {
    return localStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

let current = read();

export function getWorkspaceId(): string | undefined {
  return current;
}

export function setWorkspaceId(next: string | undefined): void {
  if (next === current) return;
  current = next;
  try {
    if (next) localStorage.setItem(KEY, next);
    else localStorage.removeItem(KEY);
  } catch {
    // Private mode without storage: the choice lasts until the tab closes.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useWorkspaceId(): string | undefined {
  return useSyncExternalStore(subscribe, getWorkspaceId);
}
