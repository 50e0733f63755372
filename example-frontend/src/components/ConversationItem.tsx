/**
 * One conversation in the sidebar: open it, rename it (PATCH title) or delete it (asks first).
 * A title cut to one line shows in full as its tooltip, and wrapped while focused (styles.css).
 */
import { type FormEvent, useState } from "react";
import type { Conversation } from "../types.js";
import { Icon } from "./Icon.js";

interface Props {
  conversation: Conversation;
  current: boolean;
  onOpen(id: string): void;
  onRename(id: string, title: string): Promise<void>;
  onDelete(id: string): Promise<void>;
}

export function ConversationItem({ conversation, current, onOpen, onRename, onDelete }: Props) {
  const [mode, setMode] = useState<"view" | "rename" | "confirm">("view");
  const [title, setTitle] = useState(conversation.title);

  async function rename(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const next = title.trim();
    if (next && next !== conversation.title) await onRename(conversation.id, next);
    setMode("view");
  }

  if (mode === "rename") {
    return (
      <li className="conversation editing">
        <form onSubmit={rename} className="row">
          <input
            aria-label="Conversation title"
            value={title}
            maxLength={200}
            onChange={(event) => setTitle(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Escape") setMode("view");
            }}
          />
          <button type="submit">Save</button>
        </form>
      </li>
    );
  }

  return (
    <li className={current ? "conversation current" : "conversation"}>
      <button
        type="button"
        className="link title"
        aria-current={current ? "page" : undefined}
        title={conversation.title}
        onClick={() => onOpen(conversation.id)}
      >
        {conversation.title}
      </button>
      {mode === "confirm" ? (
        <span className="row actions">
          <button
            type="button"
            className="danger small"
            onClick={() => void onDelete(conversation.id)}
          >
            Delete
          </button>
          <button type="button" className="secondary small" onClick={() => setMode("view")}>
            Keep
          </button>
        </span>
      ) : (
        <span className="row actions">
          <button
            type="button"
            className="icon"
            aria-label={`Rename ${conversation.title}`}
            title="Rename"
            onClick={() => {
              setTitle(conversation.title);
              setMode("rename");
            }}
          >
            <Icon name="pencil" />
          </button>
          <button
            type="button"
            className="icon"
            aria-label={`Delete ${conversation.title}`}
            title="Delete"
            onClick={() => setMode("confirm")}
          >
            <Icon name="trash" />
          </button>
        </span>
      )}
    </li>
  );
}
