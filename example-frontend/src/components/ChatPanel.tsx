/**
 * The conversation itself, through `useTerrenoChat` (this repo's `terreno-mcp/react`): the
 * reply streams in, tool calls show as cards, writes wait for Approve / Deny. The page keys
 * this component by the conversation it opened, so switching conversations starts a fresh chat
 * with that conversation's stored messages.
 */
import type { UIMessage } from "ai";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTerrenoChat } from "../../../src/react/index.js";
import { authFetch } from "../api.js";
import { getSession } from "../session.js";
import { errorSentence } from "../toolError.js";
import type { HeldApproval, Rating } from "../types.js";
import { Composer } from "./Composer.js";
import { HeldCallCard } from "./HeldCallCard.js";
import { AppHostContext } from "./McpAppFrame.js";
import { MessageView } from "./MessageView.js";

const SUGGESTIONS = [
  "add a todo to buy milk tomorrow",
  "list my todos",
  "complete buy milk",
  "how do I connect Claude Code?",
];

interface Props {
  /** The useChat id: the conversation's, or a fresh one for a new chat. */
  chatId: string;
  conversationId: string | undefined;
  initialMessages: UIMessage[];
  /** The person's stored ratings, by UI message id. */
  ratings: ReadonlyMap<string, Rating>;
  /** App views' calls the server still holds for an answer (found on reopening). */
  heldCalls: HeldApproval[];
  /** The server named the conversation this chat is stored in. */
  onConversation(id: string): void;
  /** A reply finished: data may have changed. */
  onReplyFinished(): void;
}

/** A stored turn the person stopped (the chat plugin's `status`, kept in the metadata). */
function isStopped(message: UIMessage): boolean {
  return (message.metadata as { status?: string } | undefined)?.status === "stopped";
}

export function ChatPanel(props: Props) {
  const { onConversation, onReplyFinished } = props;
  const chat = useTerrenoChat({
    id: props.chatId,
    conversationId: props.conversationId,
    messages: props.initialMessages,
    getToken: () => getSession()?.token,
    // Refreshes the access token on a 401 and retries, like every other call of the page.
    fetch: authFetch,
    // A reopened conversation may have a reply still streaming (a reload mid-reply): follow it.
    resume: Boolean(props.conversationId),
    onFinish: () => onReplyFinished(),
  });
  // Messages the person stopped in this page; stored ones say so in their metadata.
  const [stoppedHere, setStoppedHere] = useState<ReadonlySet<string>>(new Set());
  const busy = chat.status === "submitted" || chat.status === "streaming";
  const stored = chat.conversationId;
  const lastUser = chat.messages.findLastIndex((message) => message.role === "user");

  useEffect(() => {
    if (chat.conversationId) onConversation(chat.conversationId);
  }, [chat.conversationId, onConversation]);

  // Keep the newest message in view as text streams in.
  const end = useRef<HTMLDivElement>(null);
  const lastLength = JSON.stringify(chat.messages.at(-1)?.parts ?? []).length;
  useEffect(() => {
    if (lastLength >= 0) end.current?.scrollIntoView({ block: "end" });
  }, [lastLength]);

  // Where a tool card's MCP App sends its own calls (and their approvals).
  const appHost = useMemo(
    () => ({
      chatId: props.chatId,
      conversationId: chat.conversationId,
      onChanged: onReplyFinished,
    }),
    [props.chatId, chat.conversationId, onReplyFinished],
  );

  const send = (text: string) => void chat.sendMessage({ text });
  const approve = (toolCallId: string) => void chat.approve(toolCallId);
  const deny = (toolCallId: string) => void chat.deny(toolCallId, "Denied in the page.");
  const stop = () => {
    const last = chat.messages.at(-1);
    if (last) setStoppedHere((ids) => new Set(ids).add(last.id));
    void chat.stop();
  };

  return (
    <AppHostContext.Provider value={appHost}>
      <main className="chat" aria-label="Chat">
        <div className="messages" role="log" aria-live="polite" aria-label="Messages">
          {chat.messages.length === 0 ? (
            <div className="empty">
              <p>Ask the assistant to work on your todos. Try:</p>
              <ul className="suggestions">
                {SUGGESTIONS.map((text) => (
                  <li key={text}>
                    <button type="button" className="secondary" onClick={() => send(text)}>
                      {text}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {chat.messages.map((message, index) => (
            <MessageView
              key={message.id}
              message={message}
              streaming={busy && index === chat.messages.length - 1}
              stopped={stoppedHere.has(message.id) || isStopped(message)}
              rating={props.ratings.get(message.id)}
              answerable={index > lastUser}
              onApprove={approve}
              onDeny={deny}
            />
          ))}
          {stored
            ? props.heldCalls.map((call) => (
                <HeldCallCard
                  key={call.toolCallId}
                  call={call}
                  conversationId={stored}
                  onChanged={onReplyFinished}
                />
              ))
            : null}
          {chat.status === "submitted" ? <p className="muted typing">Thinking…</p> : null}
          {chat.error ? (
            <p role="alert" className="error">
              {errorSentence(chat.error.message)}
            </p>
          ) : null}
          <div ref={end} />
        </div>
        <Composer busy={busy} onSend={send} onStop={stop} />
      </main>
    </AppHostContext.Provider>
  );
}
