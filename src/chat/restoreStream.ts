/**
 * The chat stream's way back from redaction: the model sees `[EMAIL_1]`-style placeholders, the
 * user sees the originals. Text is held back while it ends in what may be the start of a
 * placeholder, so one split across two deltas is still restored.
 */
import type { StreamTextTransform, TextStreamPart, ToolSet } from "ai";
import type { PlainObject } from "../core/types.js";
import { partialPlaceholderLength, type Redactor } from "./redact.js";

/** Maps the model's placeholders back to the originals before the client sees them. */
export function restoreTransform(redactor: Redactor): StreamTextTransform<ToolSet> {
  return () => {
    const held = new Map<string, { id: string; rest: PlainObject; text: string }>();
    return new TransformStream<TextStreamPart<ToolSet>, TextStreamPart<ToolSet>>({
      transform(part, controller) {
        if (part.type === "text-delta" || part.type === "reasoning-delta") {
          const key = `${part.type}:${part.id}`;
          const text = (held.get(key)?.text ?? "") + part.text;
          const keep = partialPlaceholderLength(text);
          const ready = text.slice(0, text.length - keep);
          held.set(key, {
            id: part.id,
            rest: part as unknown as PlainObject,
            text: text.slice(ready.length),
          });
          if (ready) controller.enqueue({ ...part, text: redactor.restore(ready) });
          return;
        }
        if (part.type === "text-end" || part.type === "reasoning-end") {
          const key = `${part.type === "text-end" ? "text-delta" : "reasoning-delta"}:${part.id}`;
          const pending = held.get(key);
          held.delete(key);
          if (pending?.text) {
            controller.enqueue({
              ...(pending.rest as unknown as TextStreamPart<ToolSet>),
              text: redactor.restore(pending.text),
            } as TextStreamPart<ToolSet>);
          }
          controller.enqueue(part);
          return;
        }
        const copy = { ...part } as PlainObject;
        if ("input" in copy) copy.input = redactor.restoreDeep(copy.input);
        if ("delta" in copy && typeof copy.delta === "string")
          copy.delta = redactor.restore(copy.delta);
        if ("toolCall" in copy && copy.toolCall && typeof copy.toolCall === "object") {
          const call = copy.toolCall as PlainObject;
          copy.toolCall = { ...call, input: redactor.restoreDeep(call.input) };
        }
        controller.enqueue(copy as unknown as TextStreamPart<ToolSet>);
      },
      flush(controller) {
        // A stream cut short (an error, an abort) still delivers the text held back.
        for (const pending of held.values()) {
          if (!pending.text) continue;
          controller.enqueue({
            ...(pending.rest as unknown as TextStreamPart<ToolSet>),
            text: redactor.restore(pending.text),
          } as TextStreamPart<ToolSet>);
        }
        held.clear();
      },
    });
  };
}
