/**
 * Talking to the example backend: sign-up and sign-in (POST /auth/signup, /auth/login), and a
 * fetch that sends the access token and, on a 401, spends the refresh token once
 * (POST /auth/refresh_token) and retries. Refresh tokens rotate and a spent one revokes its
 * whole family, so concurrent 401s share a single refresh. Every call names the page's
 * workspace (`X-Workspace-Id`).
 */
import { getSession, type Session, setSession } from "./session.js";
import { getWorkspaceId } from "./workspace.js";

/** The backend's error body: `{status, title, detail, code, fields?}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  let body: { detail?: string; title?: string; code?: string; fields?: Record<string, string> } =
    {};
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy's error page): the status line says enough.
  }
  const fields = body.fields
    ? ` (${Object.entries(body.fields)
        .map(([field, problem]) => `${field} ${problem}`)
        .join("; ")})`
    : "";
  return new ApiError(
    response.status,
    `${body.detail ?? body.title ?? response.statusText}${fields}`,
    body.code,
    body.fields,
  );
}

interface TokenPair {
  token: string;
  refreshToken: string;
  userId: string;
}

export async function authenticate(
  kind: "login" | "signup",
  email: string,
  password: string,
): Promise<Session> {
  const response = await fetch(`/auth/${kind}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (!response.ok) throw await errorOf(response);
  const { data } = (await response.json()) as { data: TokenPair };
  const session: Session = { ...data, email: email.trim().toLowerCase() };
  setSession(session);
  return session;
}

let refreshing: Promise<Session | undefined> | undefined;

/** Swaps the refresh token for new tokens; signs out when that fails. One refresh at a time. */
function refreshSession(stale: Session): Promise<Session | undefined> {
  refreshing ??= (async () => {
    try {
      // Another caller may have refreshed already: use its tokens.
      const now = getSession();
      if (now && now.token !== stale.token) return now;
      const response = await fetch("/auth/refresh_token", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ refreshToken: stale.refreshToken }),
      });
      if (!response.ok) {
        setSession(undefined);
        return undefined;
      }
      const { data } = (await response.json()) as { data: TokenPair };
      const next: Session = { ...data, email: stale.email };
      setSession(next);
      return next;
    } finally {
      refreshing = undefined;
    }
  })();
  return refreshing;
}

/** The access token, and the page's workspace (workspace.ts) unless the call names its own. */
function withToken(init: RequestInit | undefined, token: string | undefined): RequestInit {
  const headers = new Headers(init?.headers);
  if (token) headers.set("Authorization", `Bearer ${token}`);
  const workspaceId = getWorkspaceId();
  if (workspaceId && !headers.has("X-Workspace-Id")) headers.set("X-Workspace-Id", workspaceId);
  return { ...init, headers };
}

/** fetch with the current access token, refreshed and retried once on a 401. */
export async function authFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const session = getSession();
  const response = await fetch(input, withToken(init, session?.token));
  if (response.status !== 401 || !session) return response;
  const renewed = await refreshSession(session);
  if (!renewed) return response;
  return fetch(input, withToken(init, renewed.token));
}

/** A JSON API call: the `data` of the answer, or an ApiError. */
export async function apiJson<T>(path: string, init?: RequestInit): Promise<T> {
  const headers = new Headers(init?.headers);
  if (init?.body !== undefined) headers.set("Content-Type", "application/json");
  const response = await authFetch(path, { ...init, headers });
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return undefined as T;
  const body = (await response.json()) as { data: T };
  return body.data;
}
