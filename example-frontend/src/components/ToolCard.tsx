/**
 * One tool call as a card: the tool, its input, then its result or error. A write waits for
 * the person (the chat plugin's approval gate): the card asks, and Approve / Deny answer it;
 * the chat then re-sends by itself and the server runs the tool, or does not.
 */
import { type DynamicToolUIPart, getToolName, type ToolUIPart } from "ai";
import { errorSentence, toolFailure } from "../toolError.js";
import { JsonBlock } from "./JsonBlock.js";
import { McpAppFrame } from "./McpAppFrame.js";

type ToolPart = ToolUIPart | DynamicToolUIPart;

interface Props {
  part: ToolPart;
  /**
   * Whether a request for approval can still be answered: only in a reply after the newest user
   * message. The AI SDK drops a request left unanswered before it (the person went on), so an
   * Approve there would run nothing.
   */
  answerable: boolean;
  onApprove(toolCallId: string): void;
  onDeny(toolCallId: string): void;
}

function statusOf(part: ToolPart, answerable: boolean): { label: string; tone: string } {
  switch (part.state) {
    case "input-streaming":
    case "input-available":
      return { label: "Running…", tone: "pending" };
    case "approval-requested":
      return answerable
        ? { label: "Waiting for your approval", tone: "ask" }
        : { label: "Not answered: nothing was run", tone: "denied" };
    case "approval-responded":
      return part.approval.approved
        ? { label: "Approved, running…", tone: "pending" }
        : { label: "Denied", tone: "denied" };
    case "output-available":
      return toolFailure(part.output)
        ? { label: "Failed", tone: "error" }
        : { label: "Done", tone: "done" };
    case "output-error":
      return { label: "Failed", tone: "error" };
    case "output-denied":
      return { label: "Denied: nothing was run", tone: "denied" };
    default:
      return { label: "", tone: "pending" };
  }
}

export function ToolCard({ part, answerable, onApprove, onDeny }: Props) {
  const name = getToolName(part);
  const status = statusOf(part, answerable);
  // Said once, as a sentence: a failed result's error, or the error the call was refused with.
  const failure =
    part.state === "output-available"
      ? toolFailure(part.output)
      : part.state === "output-error"
        ? errorSentence(part.errorText)
        : undefined;
  return (
    <section
      className={`tool-card ${status.tone}`}
      aria-label={`Tool call ${name}`}
      data-state={part.state}
    >
      <header className="row">
        <code className="tool-name">{name}</code>
        <span className="spacer" />
        <span className="tool-status">{status.label}</span>
      </header>
      {part.input !== undefined ? <JsonBlock label="Input" value={part.input} /> : null}
      {part.state === "approval-requested" && answerable ? (
        <fieldset className="approval" aria-label={`Approve ${name}?`}>
          <legend>This call changes your data. Run it?</legend>
          <button type="button" onClick={() => onApprove(part.toolCallId)}>
            Approve
          </button>
          <button type="button" className="danger" onClick={() => onDeny(part.toolCallId)}>
            Deny
          </button>
        </fieldset>
      ) : null}
      {part.state === "output-available" && !failure ? (
        <McpAppFrame toolName={name} input={part.input} output={part.output} />
      ) : null}
      {part.state === "output-available" && !failure ? (
        <JsonBlock label="Result" value={part.output} collapsed />
      ) : null}
      {failure ? (
        <p className="error" role="status">
          {failure}
        </p>
      ) : null}
    </section>
  );
}
