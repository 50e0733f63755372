/**
 * Thumbs up / down on an assistant message: POST /chat/feedback {messageId, rating}. A rating
 * given before (a reopened conversation) shows pressed, and the buttons stay locked.
 */
import { useState } from "react";
import { apiJson } from "../api.js";
import type { Rating } from "../types.js";
import { Icon } from "./Icon.js";

interface Props {
  messageId: string;
  /** The rating stored for this message, if any. */
  given?: Rating;
}

export function FeedbackButtons({ messageId, given }: Props) {
  const [rating, setRating] = useState<Rating | undefined>(given);
  // Thanks are for a rating given now, not for one found on reopening.
  const [thanked, setThanked] = useState(false);
  const [error, setError] = useState<string>();

  async function rate(next: Rating) {
    setError(undefined);
    try {
      await apiJson("/chat/feedback", {
        method: "POST",
        body: JSON.stringify({ messageId, rating: next }),
      });
      setRating(next);
      setThanked(true);
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
    }
  }

  return (
    <div className="feedback row">
      <button
        type="button"
        className="icon"
        aria-label="Good answer"
        aria-pressed={rating === "up"}
        disabled={rating !== undefined}
        onClick={() => void rate("up")}
      >
        <Icon name="thumbUp" />
      </button>
      <button
        type="button"
        className="icon"
        aria-label="Bad answer"
        aria-pressed={rating === "down"}
        disabled={rating !== undefined}
        onClick={() => void rate("down")}
      >
        <Icon name="thumbDown" />
      </button>
      {thanked ? <span className="muted small">Thanks for the feedback.</span> : null}
      {error ? <span className="error small">{error}</span> : null}
    </div>
  );
}
