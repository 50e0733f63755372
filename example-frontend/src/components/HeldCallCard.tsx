/**
 * A call an app view asked for, found still held on reopening the conversation (its view's
 * question went with the old page): the card shows its input and asks again, and the answer goes
 * where the view's would have, POST /chat/app-calls/:toolCallId, which runs an approved call once.
 */
import { useState } from "react";
import { apiJson } from "../api.js";
import { errorSentence } from "../toolError.js";
import type { HeldApproval } from "../types.js";
import { JsonBlock } from "./JsonBlock.js";

interface CallResult {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

type Outcome =
  | { kind: "done"; output: unknown }
  | { kind: "denied" }
  | { kind: "failed"; error: string };

interface Props {
  call: HeldApproval;
  conversationId: string;
  /** An approved call ran: data may have changed. */
  onChanged(): void;
}

function statusOf(outcome: Outcome | undefined, sending: boolean) {
  if (sending) return { label: "Sending…", tone: "pending" };
  switch (outcome?.kind) {
    case "done":
      return { label: "Done", tone: "done" };
    case "denied":
      return { label: "Denied: nothing was run", tone: "denied" };
    case "failed":
      return { label: "Failed", tone: "error" };
    default:
      return { label: "Waiting for your approval", tone: "ask" };
  }
}

export function HeldCallCard({ call, conversationId, onChanged }: Props) {
  const [outcome, setOutcome] = useState<Outcome>();
  const [sending, setSending] = useState(false);
  const status = statusOf(outcome, sending);

  async function answer(approved: boolean): Promise<void> {
    setSending(true);
    try {
      const { result } = await apiJson<{ result: CallResult }>(
        `/chat/app-calls/${encodeURIComponent(call.toolCallId)}`,
        {
          method: "POST",
          body: JSON.stringify({ conversationId, approvalId: call.approvalId, approved }),
        },
      );
      if (!approved) setOutcome({ kind: "denied" });
      else if (result.isError) {
        setOutcome({ kind: "failed", error: errorSentence(result.content[0]?.text ?? "") });
      } else {
        setOutcome({ kind: "done", output: result.structuredContent });
        onChanged();
      }
    } catch (reason) {
      setOutcome({
        kind: "failed",
        error: errorSentence(reason instanceof Error ? reason.message : String(reason)),
      });
    } finally {
      setSending(false);
    }
  }

  return (
    <section
      className={`tool-card ${status.tone}`}
      aria-label={`Tool call ${call.toolName}`}
      data-state={outcome?.kind ?? "approval-requested"}
    >
      <header className="row">
        <code className="tool-name">{call.toolName}</code>
        <span className="spacer" />
        <span className="tool-status">{status.label}</span>
      </header>
      <JsonBlock label="Input" value={call.input} />
      {!outcome && !sending ? (
        <fieldset className="approval" aria-label={`Approve ${call.toolName}?`}>
          <legend>An app asked to run this call, which changes your data. Run it?</legend>
          <button type="button" onClick={() => void answer(true)}>
            Approve
          </button>
          <button type="button" className="danger" onClick={() => void answer(false)}>
            Deny
          </button>
        </fieldset>
      ) : null}
      {outcome?.kind === "done" ? (
        <JsonBlock label="Result" value={outcome.output} collapsed />
      ) : null}
      {outcome?.kind === "failed" ? (
        <p className="error" role="status">
          {outcome.error}
        </p>
      ) : null}
    </section>
  );
}
