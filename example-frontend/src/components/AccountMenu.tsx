/**
 * The account menu: who is signed in, and what can act for them. The apps connected through
 * OAuth (GET /auth/connections, present when the server runs the OAuth sign-in) and the
 * personal access tokens (GET /auth/tokens), each with a Revoke button.
 */
import { useCallback, useEffect, useState } from "react";
import { ApiError, apiJson } from "../api.js";
import type { Session } from "../session.js";

interface ConnectedApp {
  clientId: string;
  name: string;
  trust: "verified" | "unverified";
  redirectHost: string | null;
  scopes: string[];
  grantedAt: string | null;
  lastUsedAt: string | null;
}

interface PersonalToken {
  id: string;
  name: string;
  scope: string;
  expiresAt: string;
  lastUsedAt?: string | null;
}

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "never");

/** The two lists, loaded when the menu opens; `null` connections: the server has no OAuth. */
function useGrants(open: boolean) {
  const [apps, setApps] = useState<ConnectedApp[] | null>(null);
  const [tokens, setTokens] = useState<PersonalToken[]>([]);
  const [error, setError] = useState<string>();
  const load = useCallback(async () => {
    setError(undefined);
    try {
      setTokens(await apiJson<PersonalToken[]>("/auth/tokens"));
      try {
        setApps(await apiJson<ConnectedApp[]>("/auth/connections"));
      } catch (caught) {
        if (!(caught instanceof ApiError && caught.status === 404)) throw caught;
        setApps(null);
      }
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  }, []);
  useEffect(() => {
    if (open) void load();
  }, [open, load]);
  const revoke = async (path: string) => {
    try {
      await apiJson<void>(path, { method: "DELETE" });
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
    await load();
  };
  return { apps, tokens, error, revoke };
}

export function AccountMenu({ session }: { session: Session }) {
  const [open, setOpen] = useState(false);
  const { apps, tokens, error, revoke } = useGrants(open);
  return (
    <div className="account-menu">
      <button
        type="button"
        className="secondary small account"
        aria-expanded={open}
        aria-controls="account-panel"
        title={session.email}
        onClick={() => setOpen(!open)}
      >
        {session.email}
      </button>
      {open ? (
        <section id="account-panel" className="account-panel" aria-label="Account">
          {error ? (
            <p className="error" role="alert">
              {error}
            </p>
          ) : null}
          {apps ? (
            <>
              <h2>Connected apps</h2>
              {apps.length === 0 ? <p className="muted">No app is connected.</p> : null}
              <ul aria-label="Connected apps">
                {apps.map((app) => (
                  <li key={app.clientId}>
                    <strong>{app.name}</strong> <span className="badge">{app.trust}</span>
                    <div className="muted">
                      {app.redirectHost ?? "no redirect"} · {app.scopes.join(" ")} · granted{" "}
                      {when(app.grantedAt)} · last used {when(app.lastUsedAt)}
                    </div>
                    <button
                      type="button"
                      className="secondary small"
                      aria-label={`Revoke ${app.name}`}
                      onClick={() =>
                        void revoke(`/auth/connections/${encodeURIComponent(app.clientId)}`)
                      }
                    >
                      Revoke
                    </button>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <h2>Personal access tokens</h2>
          {tokens.length === 0 ? <p className="muted">No personal access token.</p> : null}
          <ul aria-label="Personal access tokens">
            {tokens.map((token) => (
              <li key={token.id}>
                <strong>{token.name}</strong> <span className="badge">{token.scope}</span>
                <div className="muted">expires {when(token.expiresAt)}</div>
                <button
                  type="button"
                  className="secondary small"
                  aria-label={`Revoke ${token.name}`}
                  onClick={() => void revoke(`/auth/tokens/${encodeURIComponent(token.id)}`)}
                >
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
