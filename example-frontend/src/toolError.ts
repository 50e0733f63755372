/**
 * Errors as sentences for people. A tool's own failure comes back as a result
 * `{error: {detail, fields?}}` (the chat plugin's tools answer like REST), and a failed chat
 * request as the plugin's JSON error body; both become one sentence naming each field once,
 * e.g. "Invalid input: title must be at most 200 characters."
 */

interface ErrorBody {
  detail?: string;
  title?: string;
  fields?: Record<string, string>;
}

function sentence(body: ErrorBody): string {
  const detail = (body.detail ?? body.title ?? "The tool failed.").trim();
  const fields = Object.entries(body.fields ?? {});
  if (fields.length === 0) return /[.!?]$/.test(detail) ? detail : `${detail}.`;
  const list = fields.map(([field, problem]) => `${field} ${problem}`).join("; ");
  return `${detail.replace(/[.!?]+$/, "")}: ${list}.`;
}

/** The sentence of a tool result that is a failure, else undefined (the call worked). */
export function toolFailure(output: unknown): string | undefined {
  if (typeof output !== "object" || output === null || !("error" in output)) return undefined;
  const error = (output as { error: unknown }).error;
  if (typeof error === "string") return sentence({ detail: error });
  return sentence((error ?? {}) as ErrorBody);
}

/**
 * A thrown error's text (a tool's `errorText`, a chat request's answer) as a sentence: a JSON
 * error body is read; otherwise its first line, without a leading `code:`.
 */
export function errorSentence(text: string): string {
  const trimmed = text.trim();
  const lines = trimmed.split("\n");
  for (const candidate of [trimmed, lines.at(-1) ?? ""]) {
    try {
      const parsed = JSON.parse(candidate) as { error?: ErrorBody } & ErrorBody;
      if (parsed && typeof parsed === "object") {
        const body = typeof parsed.error === "object" ? parsed.error : parsed;
        if (body.detail || body.title) return sentence(body);
      }
    } catch {
      // Not JSON: plain text.
    }
  }
  return sentence({ detail: (lines[0] ?? "").replace(/^[a-z_]+:\s+/, "") || "It failed." });
}
