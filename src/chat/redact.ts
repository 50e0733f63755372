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
 *
 * The patterns then run over a view of that text in which every decimal digit of any script
 * (`\p{Nd}`: Arabic-Indic, Devanagari, Thai..., which NFKC leaves alone) reads as its ASCII
 * digit. A position map leads each match back to the text, so the span replaced, and the value
 * `restore` gives back, is what was written, in its own digits; numbers that are no PII keep
 * theirs too.
 */

export type PIIKind = "EMAIL" | "PHONE" | "CARD";

/** What an unquoted local part is made of: letters, marks and digits of any script, and the
 * specials people use (`o'brien`, `john_doe`, `a+tag`). */
const LOCAL_CHAR = String.raw`[\p{L}\p{M}\p{N}._%+!#$&'*^\x60~-]`;
/** What no address starts with (markdown's `*`, a backtick, a quote, dots): trimmed off the
 * front of a match, so it stays outside the placeholder. */
const LEADING_PUNCTUATION = /^[!#$&'*^\x60~.]+/;
/**
 * An unquoted (`jö@…`) or quoted (`"john doe"@…`) local part; a domain of labels of any script
 * (`exämple.com`), or an address literal (`user@[192.0.2.1]`, `user@[IPv6:2001:db8::1]`). The
 * unquoted local part starts only where a run of its characters starts: trying every position
 * inside a long run again would take time quadratic in its length.
 */
const EMAIL = new RegExp(
  String.raw`(?:(?<!${LOCAL_CHAR})${LOCAL_CHAR}+|"(?:[^"\\\r\n]|\\[^\r\n]){1,64}")@` +
    String.raw`(?:[\p{L}\p{M}\p{N}-]+(?:\.[\p{L}\p{M}\p{N}-]+)*\.\p{L}[\p{L}\p{M}]+` +
    String.raw`|\[(?:\d{1,3}(?:\.\d{1,3}){3}|[Ii][Pp][Vv]6:[\dA-Fa-f:.]{2,45})\])`,
  "gu",
);
/**
 * The dashes between digit groups: `-`, and those autocorrect and word processors write, which
 * NFKC leaves as they are (hyphen, figure dash, en and em dash, horizontal bar, minus sign).
 */
const DASHES = String.raw`\-\u2010-\u2015\u2212`;
/**
 * What may stand between the digit groups of a card number: a dash, dot, slash or underscore
 * (with a few spaces or tabs around it), or up to eight spaces, tabs or line breaks.
 */
const GROUP_SEPARATOR = String.raw`(?:[ \t]{0,4}[${DASHES}./_][ \t]{0,4}|\s{1,8})`;
/** A run of digit groups, not glued to a word, a `+` or a decimal point before it. */
const DIGIT_RUN = new RegExp(String.raw`(?<![\w+.])\d+(?:${GROUP_SEPARATOR}\d+)*`, "g");
/** Invisible characters that split a value without showing: zero-width spaces and joiners,
 * word joiner, BOM, soft hyphen, and the other format characters of Unicode category Cf. */
const INVISIBLE = /[\p{Cf}]/gu;
/**
 * An optional `+country` code, an optional `(area)`, then digit groups split by a space, dot or
 * dash; 10 to 15 digits in all (checked below), bounded so ids and dates do not match.
 */
const PHONE = new RegExp(
  String.raw`(?<![\w+])(?:\+\d{1,3}[ .${DASHES}]?)?(?:\(\d{1,4}\)[ .${DASHES}]?)?\d{2,4}(?:[ .${DASHES}]?\d{2,5}){1,5}(?![\w])`,
  "g",
);
const PLACEHOLDER = /\[(EMAIL|PHONE|CARD)_(\d+)\]/g;
/** A decimal digit that is not ASCII. */
const OTHER_DIGIT = /(?![0-9])\p{Nd}/u;
const DECIMAL_DIGIT = /^\p{Nd}$/u;

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

const asciiDigits = new Map<number, string>();

/**
 * The ASCII digit a decimal digit of any script stands for. Unicode encodes every decimal
 * digit set as ten consecutive code points, zero to nine (a stability guarantee), and sets that
 * sit side by side (the mathematical digits) are whole sets, so the digit's place in its run of
 * `\p{Nd}` code points, modulo ten, is its value. At most ~700 code points are cached.
 */
function asciiDigit(codePoint: number): string {
  let digit = asciiDigits.get(codePoint);
  if (digit === undefined) {
    let offset = 0;
    while (DECIMAL_DIGIT.test(String.fromCodePoint(codePoint - offset - 1))) offset += 1;
    digit = String(offset % 10);
    asciiDigits.set(codePoint, digit);
  }
  return digit;
}

/**
 * `text` with every decimal digit read as ASCII, and where each of its UTF-16 units (and its
 * end) starts in `text`; undefined when `text` has no other digits, so it is its own view.
 */
function digitView(text: string): { view: string; origin: number[] } | undefined {
  if (!OTHER_DIGIT.test(text)) return undefined;
  const view: string[] = [];
  const origin: number[] = [];
  let at = 0;
  for (const char of text) {
    if (OTHER_DIGIT.test(char)) {
      view.push(asciiDigit(char.codePointAt(0) ?? 0));
      origin.push(at);
    } else {
      view.push(char);
      for (let unit = 0; unit < char.length; unit += 1) origin.push(at + unit);
    }
    at += char.length;
  }
  origin.push(at);
  return { view: view.join(""), origin };
}

/** A span of the text to replace: where it starts and ends, and the text to put there. */
interface Replacement {
  start: number;
  end: number;
  with: string;
}

/**
 * `text` with the spans `find` picks in its ASCII-digit view replaced; `find` gets the view and
 * gives spans of it, with what to put there given the span as written in `text`.
 */
function replaceInView(
  text: string,
  find: (view: string, written: (start: number, end: number) => string) => Replacement[],
): string {
  const mapped = digitView(text);
  const toText = (index: number) => (mapped ? (mapped.origin[index] ?? text.length) : index);
  const written = (start: number, end: number) => text.slice(toText(start), toText(end));
  let out = "";
  let last = 0;
  for (const span of find(mapped?.view ?? text, written)) {
    const start = toText(span.start);
    out += text.slice(last, start) + span.with;
    last = toText(span.end);
  }
  return out + text.slice(last);
}

/** The spans `keep` makes of the matches of a global `pattern` (undefined: left alone). */
function matchSpans(
  view: string,
  pattern: RegExp,
  keep: (match: string, start: number) => Replacement | undefined,
): Replacement[] {
  const spans: Replacement[] = [];
  for (const match of view.matchAll(pattern)) {
    const span = keep(match[0], match.index);
    if (span) spans.push(span);
  }
  return spans;
}

/**
 * Whether digit groups of these sizes are written the way card numbers are: one block, fours
 * (the last group shorter: 4-4-4-1, 4-4-4-4-3), or American Express and Diners' 4-6-5 and 4-6-4.
 */
function cardShaped(sizes: number[]): boolean {
  const shape = sizes.join("-");
  if (sizes.length === 1 || shape === "4-6-5" || shape === "4-6-4") return true;
  return sizes.slice(0, -1).every((size) => size === 4) && sizes[sizes.length - 1] <= 4;
}

/**
 * The card numbers in one run of digit groups: a stretch of whole groups with 13 to 19 digits
 * that passes Luhn, from the left. A stretch grouped as cards are counts first, longest first;
 * where the run starts (or a card ended), the longest stretch counts in any grouping too
 * (`4 1 1 1 …`, `41 11 …`). Further in, a stretch counts only when grouped as cards are and
 * not continuing a grouping in fours (`qty 3 4111 1111 1111 1111`), so a list of numbers is not
 * read as cards at every offset.
 */
function cardSpans(run: string, runStart: number, view: string): Array<[number, number]> {
  const groups = [...run.matchAll(/\d+/g)].map((group) => ({
    start: runStart + group.index,
    end: runStart + group.index + group[0].length,
    digits: group[0],
  }));
  // The run's last group may not be glued to a word (`…1111abc`).
  const lastGlued = /\w/.test(view[runStart + run.length] ?? "");
  const spans: Array<[number, number]> = [];
  let first = 0;
  /** The group after the last card found: a new card may start there in any grouping. */
  let cardEnd = -1;
  while (first < groups.length) {
    // [index of the stretch's last group, its digits], shortest first.
    const candidates: Array<[number, string]> = [];
    let digits = "";
    for (let last = first; last < groups.length && digits.length <= 19; last += 1) {
      digits += groups[last].digits;
      const usable = !(lastGlued && last === groups.length - 1);
      if (usable && digits.length >= 13 && digits.length <= 19) candidates.push([last, digits]);
    }
    const fresh = first === 0 || first === cardEnd;
    const inside = !fresh && groups[first - 1].digits.length !== 4;
    const longestFirst = candidates.reverse();
    const shaped = (last: number) =>
      cardShaped(groups.slice(first, last + 1).map((group) => group.digits.length));
    const found =
      (fresh || inside
        ? longestFirst.find(([last, number]) => shaped(last) && luhnValid(number))
        : undefined) ??
      (fresh && longestFirst[0] && luhnValid(longestFirst[0][1]) ? longestFirst[0] : undefined);
    if (!found) {
      first += 1;
      continue;
    }
    spans.push([groups[first].start, groups[found[0]].end]);
    first = found[0] + 1;
    cardEnd = first;
  }
  return spans;
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
    let out = normalizeText(text);
    out = replaceInView(out, (view, written) =>
      matchSpans(view, EMAIL, (match, at) => {
        // Markdown and quotes before an address (`**ada@…`, `'ada@…'`) stay outside it.
        const start = at + (LEADING_PUNCTUATION.exec(match)?.[0].length ?? 0);
        const end = at + match.length;
        return { start, end, with: this.placeholderFor("EMAIL", written(start, end)) };
      }),
    );
    out = replaceInView(out, (view, written) =>
      [...view.matchAll(DIGIT_RUN)].flatMap((run) =>
        cardSpans(run[0], run.index, view).map(([start, end]) => ({
          start,
          end,
          with: this.placeholderFor("CARD", written(start, end)),
        })),
      ),
    );
    return replaceInView(out, (view, written) =>
      matchSpans(view, PHONE, (match, start) => {
        const digits = digitCount(match);
        if (digits < 10 || digits > 15) return undefined;
        const end = start + match.length;
        return { start, end, with: this.placeholderFor("PHONE", written(start, end)) };
      }),
    );
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
