/** Thumbs up / down on an assistant message: POST /chat/feedback {messageId, rating}. */
import { useState } from "react";
import { apiJson } from "../api.js";
import { Icon } from "./Icon.js";

type Rating = "up" | "down";

export function FeedbackButtons({ messageId }: { messageId: string }) {
  const [rating, setRating] = useState<Rating>();
  const [error, setError] = useState<string>();

  async function rate(next: Rating) {
    setError(undefined);
    try {
      await apiJson("/chat/feedback", {
        method: "POST",
        body: JSON.stringify({ messageId, rating: next }),
      });
      setRating(next);
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
      {rating ? <span className="muted small">Thanks for the feedback.</span> : null}
      {error ? <span className="error small">{error}</span> : null}
    </div>
  );
}
