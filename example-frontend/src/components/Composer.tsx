/** The message box: Send (Enter), or Stop while a reply streams in. */
import { type FormEvent, useState } from "react";

interface Props {
  busy: boolean;
  onSend(text: string): void;
  onStop(): void;
}

export function Composer({ busy, onSend, onStop }: Props) {
  const [text, setText] = useState("");

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const message = text.trim();
    if (!message || busy) return;
    onSend(message);
    setText("");
  }

  return (
    <form className="composer row" onSubmit={submit}>
      <input
        aria-label="Message"
        placeholder="Ask the assistant, e.g. “add a todo to buy milk tomorrow”"
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
      {busy ? (
        <button type="button" className="secondary" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button type="submit" disabled={!text.trim()}>
          Send
        </button>
      )}
    </form>
  );
}
