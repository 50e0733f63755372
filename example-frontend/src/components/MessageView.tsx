/**
 * One chat message: the assistant's text as Markdown (the person's own as typed), its tool calls
 * as cards, feedback once the reply is done.
 */
import { isToolUIPart, type UIMessage } from "ai";
import type { Rating } from "../types.js";
import { FeedbackButtons } from "./FeedbackButtons.js";
import { Markdown } from "./Markdown.js";
import { ToolCard } from "./ToolCard.js";

interface Props {
  message: UIMessage;
  /** Still streaming: no feedback yet. */
  streaming: boolean;
  /** The person stopped this reply (or stopped before it began, on their own message). */
  stopped?: boolean;
  /** A reply after the newest user message: its requests for approval can be answered. */
  answerable: boolean;
  /** The person's stored rating of this message. */
  rating?: Rating;
  onApprove(toolCallId: string): void;
  onDeny(toolCallId: string): void;
}

export function MessageView(props: Props) {
  const { message, streaming, stopped, rating, answerable, onApprove, onDeny } = props;
  const mine = message.role === "user";
  const hasText = message.parts.some((part) => part.type === "text" && part.text.trim());
  return (
    <article
      className={mine ? "message user" : "message assistant"}
      aria-label={mine ? "Your message" : "Assistant message"}
    >
      {message.parts.map((part, index) => {
        // Parts have no id of their own; their order within a message never changes.
        const key = `${message.id}-${index}`;
        if (part.type === "text") {
          return mine ? (
            <p key={key} className="text">
              {part.text}
            </p>
          ) : (
            <Markdown key={key} text={part.text} />
          );
        }
        if (isToolUIPart(part)) {
          return (
            <ToolCard
              key={key}
              part={part}
              answerable={answerable}
              onApprove={onApprove}
              onDeny={onDeny}
            />
          );
        }
        return null;
      })}
      {stopped ? <p className="muted stopped">Stopped: the reply was cut short.</p> : null}
      {!mine && hasText && !streaming ? (
        <FeedbackButtons messageId={message.id} given={rating} />
      ) : null}
    </article>
  );
}
