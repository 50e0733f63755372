/**
 * The sidebar: a new chat, and the caller's stored conversations, newest activity first. A
 * column on a wide screen, a drawer opened from the top bar on a narrow one.
 */
import { drawerId } from "../hooks/useDrawer.js";
import type { Resource } from "../hooks/useResource.js";
import type { Conversation } from "../types.js";
import { ConversationItem } from "./ConversationItem.js";
import { DrawerClose } from "./DrawerClose.js";

interface Props {
  conversations: Resource<Conversation>;
  currentId: string | undefined;
  onOpen(id: string): void;
  onNew(): void;
  onRename(id: string, title: string): Promise<void>;
  onDelete(id: string): Promise<void>;
  /** Open as a drawer (a narrow screen). */
  open: boolean;
  onClose(): void;
}

export function ConversationSidebar(props: Props) {
  const { conversations, currentId } = props;
  return (
    <nav
      id={drawerId("conversations")}
      className={props.open ? "sidebar open" : "sidebar"}
      aria-label="Conversations"
    >
      <div className="row drawer-head">
        <button type="button" className="new-chat" onClick={props.onNew}>
          + New chat
        </button>
        <DrawerClose onClose={props.onClose} />
      </div>
      <h2>Conversations</h2>
      {conversations.error ? (
        <p role="alert" className="error">
          {conversations.error}
        </p>
      ) : null}
      {!conversations.loading && conversations.items.length === 0 ? (
        <p className="muted">No conversations yet.</p>
      ) : null}
      <ul>
        {conversations.items.map((conversation) => (
          <ConversationItem
            key={conversation.id}
            conversation={conversation}
            current={conversation.id === currentId}
            onOpen={props.onOpen}
            onRename={props.onRename}
            onDelete={props.onDelete}
          />
        ))}
      </ul>
    </nav>
  );
}
