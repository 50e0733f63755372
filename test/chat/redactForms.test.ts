/** The redactor sees through the forms a red team used to slip PII past it (issue 24.6). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { Redactor } from "../../src/chat/redact.js";

const ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"];
const FULL_WIDTH_ZERO = 0xff10;

/** Luhn-valid 16-digit numbers. */
const cardDigits = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 15 })
  .map((digits) => {
    let sum = 0;
    for (let i = 0; i < 15; i += 1) {
      let d = digits[14 - i];
      if (i % 2 === 0) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
    }
    return [...digits, (10 - (sum % 10)) % 10].join("");
  });

const groups = (digits: string) => digits.match(/\d{4}/g) ?? [];

/** One card number written in the forms people (and attackers) write them. */
const cardForm = fc
  .tuple(cardDigits, fc.constantFrom("", " ", "  ", "-", ".", "zw"), fc.boolean())
  .map(([digits, separator, fullWidth]) => {
    const sep = separator === "zw" ? "\u200b" : separator;
    let text = groups(digits).join(sep);
    if (fullWidth) {
      text = text.replace(/\d/g, (d) => String.fromCharCode(FULL_WIDTH_ZERO + Number(d)));
    }
    return text;
  });

const localPart = fc.constantFrom("ada", "jö", "bob.smith", "ａdmin", "alice+x");
const domain = fc.constantFrom("example.com", "exämple.com", "mail.co.uk", "bücher.de");
/** An email, maybe with a zero-width character inside it. */
const emailForm = fc
  .tuple(localPart, domain, fc.constantFrom(...ZERO_WIDTH, ""), fc.nat({ max: 100 }))
  .map(([local, host, invisible, at]) => {
    const email = `${local}@${host}`;
    const cut = at % (email.length + 1);
    return email.slice(0, cut) + invisible + email.slice(cut);
  });

describe("redaction of disguised PII", () => {
  test("the red team's forms are all redacted", () => {
    const cases: Array<[string, string]> = [
      ["card 4111.1111.1111.1111 ok", "card [CARD_1] ok"],
      ["card 4111  1111  1111  1111 ok", "card [CARD_1] ok"],
      ["card ４１１１ １１１１ １１１１ １１１１ ok", "card [CARD_1] ok"],
      ["mail jö@example.com ok", "mail [EMAIL_1] ok"],
      ["mail alice@exämple.com ok", "mail [EMAIL_1] ok"],
      ["mail ad\u200ba@example.com ok", "mail [EMAIL_1] ok"],
    ];
    for (const [input, expected] of cases) {
      assert.equal(new Redactor().redact(input), expected, input);
    }
  });

  test("property: a generated card number in any form leaves no digits of it behind", () => {
    fc.assert(
      fc.property(cardForm, (card) => {
        const out = new Redactor().redact(`Pay with ${card} today.`);
        assert.equal(out, "Pay with [CARD_1] today.");
      }),
      { numRuns: 300 },
    );
  });

  test("property: a generated email in any form is replaced whole", () => {
    fc.assert(
      fc.property(emailForm, (email) => {
        const out = new Redactor().redact(`Write to ${email} now.`);
        assert.equal(out, "Write to [EMAIL_1] now.");
      }),
      { numRuns: 300 },
    );
  });

  test("restoring gives the value back, normalised", () => {
    const r = new Redactor();
    const out = r.redact("to ａda@exämple.com");
    assert.equal(r.restore(out), "to ada@exämple.com");
  });
});
