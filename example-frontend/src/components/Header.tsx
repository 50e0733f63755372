/** The top bar: the app, the model in use (from GET /chat/info), who is signed in, sign out. */
import { authFetch } from "../api.js";
import { useModelInfo } from "../hooks/useModelInfo.js";
import { type Session, setSession } from "../session.js";

async function signOut(session: Session): Promise<void> {
  try {
    // Ends this session's refresh tokens on the server; the access token just expires.
    await authFetch("/auth/logout", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ refreshToken: session.refreshToken }),
    });
  } catch {
    // Offline: sign out locally all the same.
  } finally {
    setSession(undefined);
    window.history.replaceState(null, "", "/");
  }
}

export function Header({ session }: { session: Session }) {
  const info = useModelInfo();
  return (
    <header className="topbar">
      <strong className="brand">terreno-mcp example</strong>
      {info ? (
        <span
          className={info.offline ? "badge offline" : "badge"}
          data-testid="model-label"
          title={info.model}
        >
          Model: {info.label}
        </span>
      ) : null}
      <span className="spacer" />
      <span className="muted">{session.email}</span>
      <button type="button" className="secondary" onClick={() => void signOut(session)}>
        Sign out
      </button>
    </header>
  );
}
