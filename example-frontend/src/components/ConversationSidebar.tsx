/** The sidebar: a new chat, and the caller's stored conversations, newest activity first. */
import type { Resource } from "../hooks/useResource.js";
import type { Conversation } from "../types.js";
import { ConversationItem } from "./ConversationItem.js";

interface Props {
  conversations: Resource<Conversation>;
  currentId: string | undefined;
  onOpen(id: string): void;
  onNew(): void;
  onRename(id: string, title: string): Promise<void>;
  onDelete(id: string): Promise<void>;
}

export function ConversationSidebar(props: Props) {
  const { conversations, currentId } = props;
  return (
    <nav className="sidebar" aria-label="Conversations">
      <button type="button" className="new-chat" onClick={props.onNew}>
        + New chat
      </button>
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
