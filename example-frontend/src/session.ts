/**
 * The signed-in session: the JWT access token, the refresh token and who it is. Kept in
 * localStorage so that a reload stays signed in; a tiny store so React re-renders on sign-in,
 * sign-out and on a refresh that fails (which signs out).
 */
import { useSyncExternalStore } from "react";

export interface Session {
  token: string;
  refreshToken: string;
  userId: string;
  email: string;
}

const KEY = "terreno-example.session";
const listeners = new Set<() => void>();

function read(): Session | undefined {
  try {
    const raw = localStorage.getItem(KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : undefined;
    const session = parsed as Partial<Session> | undefined;
    return session?.token && session.refreshToken ? (session as Session) : undefined;
  } catch {
    // Storage disabled or a corrupt entry: start signed out.
    return undefined;
  }
}

let current = read();

export function getSession(): Session | undefined {
  return current;
}

export function setSession(next: Session | undefined): void {
  current = next;
  try {
    if (next) localStorage.setItem(KEY, JSON.stringify(next));
    else localStorage.removeItem(KEY);
  } catch {
    // Private mode without storage: the session lasts until the tab closes.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSession(): Session | undefined {
  return useSyncExternalStore(subscribe, getSession);
}
