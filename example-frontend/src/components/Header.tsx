/**
 * The top bar: the app, the model in use (from GET /chat/info), who is signed in, sign out. On a
 * narrow screen it also holds the buttons that open the conversations and todos drawers.
 */
import { authFetch } from "../api.js";
import { type Drawer, type DrawerName, drawerId, drawerToggleId } from "../hooks/useDrawer.js";
import { useModelInfo } from "../hooks/useModelInfo.js";
import { type Session, setSession } from "../session.js";
import { AccountMenu } from "./AccountMenu.js";
import { Icon } from "./Icon.js";

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

interface ToggleProps {
  drawer: Drawer;
  name: DrawerName;
  label: string;
  /** Only the icon shows (the label is still its name and tooltip), to leave the badge room. */
  iconOnly?: boolean;
}

function DrawerToggle({ drawer, name, label, iconOnly }: ToggleProps) {
  return (
    <button
      type="button"
      id={drawerToggleId(name)}
      className={`secondary small drawer-toggle ${name}`}
      aria-controls={drawerId(name)}
      aria-expanded={drawer.open === name}
      aria-label={iconOnly ? label : undefined}
      title={iconOnly ? label : undefined}
      onClick={() => drawer.toggle(name)}
    >
      <Icon name={name === "conversations" ? "menu" : "checklist"} />
      {iconOnly ? null : <span>{label}</span>}
    </button>
  );
}

export function Header({ session, drawer }: { session: Session; drawer: Drawer }) {
  const info = useModelInfo();
  return (
    <header className="topbar">
      <strong className="brand">terreno-mcp example</strong>
      {info ? (
        <span
          className={info.offline ? "badge offline" : "badge"}
          data-testid="model-label"
          title={`${info.label} (${info.model})`}
        >
          <span className="badge-prefix">Model: </span>
          {info.label}
        </span>
      ) : null}
      <span className="spacer" />
      <AccountMenu session={session} />
      <button type="button" className="secondary sign-out" onClick={() => void signOut(session)}>
        Sign out
      </button>
      <DrawerToggle drawer={drawer} name="conversations" label="Conversations" iconOnly />
      <DrawerToggle drawer={drawer} name="todos" label="Todos" />
    </header>
  );
}
