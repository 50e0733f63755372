/**
 * What the demo model understands: parseIntent() reads one user message, with a few fixed
 * phrasings per action, into an Intent. Anything it does not recognise is `help`.
 */

export type Intent =
  | { kind: "create"; title: string; dueDate?: string }
  /** `resource`: another resource's list ("list the projects" → `projects`); none for todos. */
  | { kind: "list"; resource?: string }
  | { kind: "complete"; title: string }
  | { kind: "delete"; title: string }
  | { kind: "docs"; query: string }
  | { kind: "help" };

const QUOTES = /^["'“”‘’`]+|["'“”‘’`]+$/g;

function cleanTitle(text: string): string {
  return text
    .trim()
    .replace(/[.!?]+$/, "")
    .replace(/^(?:the\s+)?(?:todo|task)\s+/i, "")
    .replace(QUOTES, "")
    .trim();
}

function isoDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** `now` is "today" for "tomorrow"; `hasDocs`: whether a question may become a docs search. */
export function parseIntent(text: string, now: Date, hasDocs: boolean): Intent {
  const input = text.trim().replace(/\s+/g, " ");
  const create =
    /^(?:please\s+)?(?:add|create|new)\s+(?:an?\s+|new\s+)*(?:todo|task)s?\s*(?:to\s+|:\s*|called\s+|named\s+)?(.+)$/i.exec(
      input,
    ) ?? /^(?:please\s+)?remind me to\s+(.+)$/i.exec(input);
  if (create?.[1]) {
    let rest = create[1].replace(/[.!]+$/, "").trim();
    let dueDate: string | undefined;
    const when = /\s+(?:due\s+)?(today|tomorrow)$/i.exec(rest);
    if (when?.[1]) {
      const date = new Date(now);
      if (when[1].toLowerCase() === "tomorrow") date.setDate(date.getDate() + 1);
      dueDate = isoDate(date);
      rest = rest.slice(0, when.index);
    }
    const title = cleanTitle(rest);
    if (title) return { kind: "create", title, ...(dueDate ? { dueDate } : {}) };
  }
  if (
    /^(?:please\s+)?(?:list|show)(?:\s+me)?\s+(?:all\s+)?(?:my\s+|the\s+)?(?:todos|tasks)\b/i.test(
      input,
    ) ||
    /^what (?:are|is) (?:on )?my (?:todos|tasks|todo list)\b/i.test(input)
  ) {
    return { kind: "list" };
  }
  // Another resource's list, by its tools' prefix: "list the projects" → `projects_list`.
  const other =
    /^(?:please\s+)?(?:list|show)(?:\s+me)?\s+(?:all\s+)?(?:my\s+|the\s+|our\s+)?([a-z][a-z_]{0,40}s)[.!?]?$/i.exec(
      input,
    );
  if (other?.[1] && !/^docs$/i.test(other[1])) {
    return { kind: "list", resource: other[1].toLowerCase() };
  }
  const complete =
    /^(?:please\s+)?(?:complete|finish|check off|tick off)\s+(.+?)$/i.exec(input) ??
    /^(?:please\s+)?mark\s+(.+?)\s+as\s+(?:done|complete|completed|finished)[.!]?$/i.exec(input);
  if (complete?.[1]) {
    const title = cleanTitle(complete[1]);
    if (title) return { kind: "complete", title };
  }
  const remove = /^(?:please\s+)?(?:delete|remove)\s+(.+)$/i.exec(input);
  if (remove?.[1]) {
    const title = cleanTitle(remove[1]);
    if (title) return { kind: "delete", title };
  }
  if (
    hasDocs &&
    (/\b(?:how|where|what|why|can i|docs?|documentation)\b/i.test(input) || input.endsWith("?"))
  ) {
    return { kind: "docs", query: input.replace(/[?!.]+$/, "").slice(0, 200) };
  }
  return { kind: "help" };
}
