/**
 * The message box: Send (Enter), or Stop while a reply streams in. Near the chat plugin's
 * message-length limit (GET /chat/info) it counts characters; past it, Send is off and the box
 * says by how much, so a message the server would refuse (413) is never sent.
 */
import { type FormEvent, useId, useState } from "react";
import { useModelInfo } from "../hooks/useModelInfo.js";

interface Props {
  busy: boolean;
  onSend(text: string): void;
  onStop(): void;
}

/** The counter shows from this share of the limit on. */
const COUNT_FROM = 0.8;

const count = (n: number) => n.toLocaleString("en-US");

export function Composer({ busy, onSend, onStop }: Props) {
  const [text, setText] = useState("");
  const limit = useModelInfo()?.maxMessageLength;
  const reasonId = useId();
  const message = text.trim();
  const over = limit !== undefined && message.length > limit ? message.length - limit : 0;
  const counting = limit !== undefined && message.length >= limit * COUNT_FROM;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!message || busy || over > 0) return;
    onSend(message);
    setText("");
  }

  return (
    <form className="composer" aria-label="Message composer" onSubmit={submit}>
      <div className="row">
        <input
          aria-label="Message"
          aria-invalid={over > 0 ? true : undefined}
          aria-describedby={over > 0 ? reasonId : undefined}
          placeholder="Ask the assistant, e.g. “add a todo to buy milk tomorrow”"
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        {busy ? (
          <button type="button" className="secondary" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!message || over > 0}>
            Send
          </button>
        )}
      </div>
      {limit !== undefined && counting ? (
        <div className={over > 0 ? "composer-limit over" : "composer-limit"}>
          {over > 0 ? (
            <span id={reasonId} role="alert">
              {count(over)} {over === 1 ? "character" : "characters"} too many: a message may have
              at most {count(limit)} characters.
            </span>
          ) : (
            <span />
          )}
          <span data-testid="message-length">
            {count(message.length)} / {count(limit)}
          </span>
        </div>
      ) : null}
    </form>
  );
}
