/**
 * PII redaction for the chat plugin, as a pure module: emails, phone numbers and Luhn-valid
 * card numbers become numbered placeholders (`[EMAIL_1]`, `[PHONE_1]`, `[CARD_1]`) in what is
 * sent to the model, and placeholders in what the model writes are mapped back.
 *
 * A `Redactor` holds one request's mapping. Numbering follows first appearance, and one value
 * always gets the same placeholder, so redacting the same history again gives the same text.
 * Text is normalised first (NFKC, zero-width characters removed), so full-width digits, a
 * zero-width space inside an address and other lookalike forms cannot slip past the patterns;
 * what the model sees, and what `restore` gives back, is the normalised text.
 */

export type PIIKind = "EMAIL" | "PHONE" | "CARD";

/** Internationalised too: letters and digits of any script (`jö@exämple.com`). */
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
/** 13 to 19 digits, optionally grouped by a dash, a dot, or one or two spaces. */
const CARD = /(?<![\w+.])\d(?:(?:[-.]| {1,2})?\d){12,18}(?![\w]|\.\d)/g;
/** Invisible characters that split a value without showing: zero-width spaces and joiners,
 * word joiner, BOM, soft hyphen, and the other format characters of Unicode category Cf. */
const INVISIBLE = /[\p{Cf}]/gu;
/**
 * An optional `+country` code, an optional `(area)`, then digit groups split by a space, dot or
 * dash; 10 to 15 digits in all (checked below), bounded so ids and dates do not match.
 */
const PHONE =
  /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,5}){1,5}(?![\w])/g;
const PLACEHOLDER = /\[(EMAIL|PHONE|CARD)_(\d+)\]/g;

/** The Luhn checksum of a digit string. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{13,19}$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/** NFKC (full-width and other compatibility forms become plain ones), invisibles removed. */
function normalizeText(text: string): string {
  return text.normalize("NFKC").replace(INVISIBLE, "");
}

function digitCount(text: string): number {
  return text.replace(/\D/g, "").length;
}

export class Redactor {
  private readonly toPlaceholder = new Map<string, string>();
  private readonly toOriginal = new Map<string, string>();
  private readonly counters: Record<PIIKind, number> = { EMAIL: 0, PHONE: 0, CARD: 0 };

  /** How many distinct values have been replaced so far. */
  get size(): number {
    return this.toOriginal.size;
  }

  private placeholderFor(kind: PIIKind, value: string): string {
    const key = `${kind}:${value}`;
    const existing = this.toPlaceholder.get(key);
    if (existing) return existing;
    this.counters[kind] += 1;
    const placeholder = `[${kind}_${this.counters[kind]}]`;
    this.toPlaceholder.set(key, placeholder);
    this.toOriginal.set(placeholder, value);
    return placeholder;
  }

  /** `text` with every email, Luhn-valid card number and phone number replaced. */
  redact(text: string): string {
    return normalizeText(text)
      .replace(EMAIL, (match) => this.placeholderFor("EMAIL", match))
      .replace(CARD, (match) =>
        luhnValid(match.replace(/\D/g, "")) ? this.placeholderFor("CARD", match) : match,
      )
      .replace(PHONE, (match) => {
        const digits = digitCount(match);
        return digits >= 10 && digits <= 15 ? this.placeholderFor("PHONE", match) : match;
      });
  }

  /** `text` with every placeholder this redactor issued replaced by its original. */
  restore(text: string): string {
    return text.replace(PLACEHOLDER, (match) => this.toOriginal.get(match) ?? match);
  }

  /** Every string inside a JSON-like value redacted (object keys are kept). */
  redactDeep<T>(value: T): T {
    return mapStrings(value, (text) => this.redact(text));
  }

  /** Every string inside a JSON-like value restored. */
  restoreDeep<T>(value: T): T {
    return mapStrings(value, (text) => this.restore(text));
  }
}

function mapStrings<T>(value: T, fn: (text: string) => string): T {
  if (typeof value === "string") return fn(value) as T;
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, fn)) as T;
  if (value !== null && typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    // Plain objects only: dates, buffers and class instances pass through untouched.
    if (proto !== Object.prototype && proto !== null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = mapStrings(item, fn);
    return out as T;
  }
  return value;
}

/**
 * How much of the end of `text` might be the start of a placeholder still being streamed
 * (`"... [EMA"`): a caller holds that tail back until more text arrives.
 */
export function partialPlaceholderLength(text: string): number {
  const match = /\[(?:[A-Z]{0,5}(?:_\d*)?)?$/.exec(text);
  return match ? match[0].length : 0;
}

/** A model message (AI SDK `ModelMessage`) with its text, tool inputs and tool results redacted. */
export function redactModelMessage<M extends { role: string; content: unknown }>(
  redactor: Redactor,
  message: M,
): M {
  if (message.role === "system") return message;
  if (typeof message.content === "string") {
    return { ...message, content: redactor.redact(message.content) };
  }
  if (!Array.isArray(message.content)) return message;
  const content = message.content.map((part: Record<string, unknown>) => {
    switch (part.type) {
      case "text":
      case "reasoning":
        return typeof part.text === "string" ? { ...part, text: redactor.redact(part.text) } : part;
      case "tool-call":
        return { ...part, input: redactor.redactDeep(part.input) };
      case "tool-result":
        return { ...part, output: redactor.redactDeep(part.output) };
      default:
        return part;
    }
  });
  return { ...message, content };
}
