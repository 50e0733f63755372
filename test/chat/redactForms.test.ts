/**
 * The redactor sees through the forms red teams used to slip PII past it: full-width digits,
 * odd spacing and zero-width characters (issue 24.6); digits of other scripts, more separators,
 * quoted local parts and IP-literal domains (issue 33.10).
 */
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

/** What the redactor works on: NFKC, invisible format characters removed. */
const normalized = (text: string) => text.normalize("NFKC").replace(/\p{Cf}/gu, "");

const groups = (digits: string) => digits.match(/\d{4}/g) ?? [];

/**
 * The zero of decimal digit sets (Unicode category Nd) people write numbers in: ASCII,
 * full-width and mathematical bold (NFKC maps these two), Arabic-Indic, Extended Arabic-Indic
 * (Persian), Devanagari, Bengali, Thai, Myanmar, and two outside the BMP (Osmanya, Adlam).
 */
const DIGIT_ZEROS = [
  0x30,
  FULL_WIDTH_ZERO,
  0x1d7ce,
  0x660,
  0x6f0,
  0x966,
  0x9e6,
  0xe50,
  0x1040,
  0x104a0,
  0x1e950,
];

/** `ascii`'s digits each written in a script `scripts` picks (a mix of scripts too). */
const inScripts = (ascii: string, scripts: number[]) => {
  let index = 0;
  return ascii.replace(/\d/g, (d) => {
    const zero = scripts[index % scripts.length];
    index += 1;
    return String.fromCodePoint(zero + Number(d));
  });
};
const scriptChoice = fc.array(fc.constantFrom(...DIGIT_ZEROS), { minLength: 1, maxLength: 3 });

/** What people put between digit groups: nothing, spaces, tabs, newlines, punctuation. */
const SEPARATORS = [
  "",
  " ",
  "  ",
  "   ",
  "    ",
  "-",
  ".",
  "/",
  "_",
  "\t",
  "\n",
  "\r\n",
  " - ",
  "zw",
  // Dashes autocorrect writes (hyphen, figure dash, en and em dash, minus sign).
  "\u2010",
  "\u2012",
  "\u2013",
  "\u2014",
  "\u2212",
];

/** One card number written in the forms people (and attackers) write them. */
const cardForm = fc
  .tuple(cardDigits, fc.constantFrom(...SEPARATORS), scriptChoice)
  .map(([digits, separator, scripts]) => {
    const sep = separator === "zw" ? "\u200b" : separator;
    return inScripts(groups(digits).join(sep), scripts);
  });

/** A phone number with a country code, in any digit script. */
const phoneForm = fc
  .tuple(
    fc.constantFrom("+1 555 123 4567", "+966 50 123 4567", "+44 20 7946 0958", "(555) 987-6543"),
    scriptChoice,
  )
  .map(([phone, scripts]) => inScripts(phone, scripts));

const localPart = fc.constantFrom(
  "ada",
  "jö",
  "bob.smith",
  "ａdmin",
  "alice+x",
  "john_doe",
  "o'brien",
  '"john doe"',
  '"a\\"b@c"',
);
const domain = fc.constantFrom(
  "example.com",
  "exämple.com",
  "mail.co.uk",
  "bücher.de",
  "[192.0.2.1]",
  "[IPv6:2001:db8::1]",
  "[١٩٢.٠.٢.١]",
);
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

  test("digits of other scripts, more separators, quoted and IP-literal emails (issue 33)", () => {
    const cases: Array<[string, string]> = [
      ["card ٤١١١ ١١١١ ١١١١ ١١١١ ok", "card [CARD_1] ok"],
      ["card ۴۱۱۱-۱۱۱۱-۱۱۱۱-۱۱۱۱ ok", "card [CARD_1] ok"],
      ["card ४१११ ११११ ११११ ११११ ok", "card [CARD_1] ok"],
      ["card 4111/1111/1111/1111 ok", "card [CARD_1] ok"],
      ["card 4111_1111_1111_1111 ok", "card [CARD_1] ok"],
      ["card 4111\t1111\t1111\t1111 ok", "card [CARD_1] ok"],
      ["card 4111\n1111\n1111\n1111 ok", "card [CARD_1] ok"],
      ["card 4111   1111   1111   1111 ok", "card [CARD_1] ok"],
      // Dashes autocorrect writes, which NFKC leaves as they are (cold review of #33).
      ["card 4111–1111–1111–1111 ok", "card [CARD_1] ok"],
      ["card 4111—1111—1111—1111 ok", "card [CARD_1] ok"],
      ["card 4111‒1111‒1111‒1111 ok", "card [CARD_1] ok"],
      ["card 4111−1111−1111−1111 ok", "card [CARD_1] ok"],
      ["call 555–123–4567 ok", "call [PHONE_1] ok"],
      ["call +٩٦٦ ٥٠ ١٢٣ ٤٥٦٧ ok", "call [PHONE_1] ok"],
      ["call ٠٥٠١٢٣٤٥٦٧ ok", "call [PHONE_1] ok"],
      ['mail "john doe"@example.com ok', "mail [EMAIL_1] ok"],
      ["mail user@[192.0.2.1] ok", "mail [EMAIL_1] ok"],
      ["mail user@[IPv6:2001:db8::1] ok", "mail [EMAIL_1] ok"],
      ["mail john_doe@example.com ok", "mail [EMAIL_1] ok"],
      ["mail o'brien@example.com ok", "mail [EMAIL_1] ok"],
      // Markdown and quotes around an address stay around its placeholder.
      ["mail **ada@example.com** ok", "mail **[EMAIL_1]** ok"],
      ["mail `ada@example.com` ok", "mail `[EMAIL_1]` ok"],
      ["mail 'ada@example.com' ok", "mail '[EMAIL_1]' ok"],
      // A card next to other digits: the Luhn-valid stretch of whole groups is found in the run.
      ["card 4111 1111 1111 1111 12/25 ok", "card [CARD_1] 12/25 ok"],
      ["qty 3 4111 1111 1111 1111 ok", "qty 3 [CARD_1] ok"],
      ["amex 3782 822463 10005 09/27 ok", "amex [CARD_1] 09/27 ok"],
      ["cards 4111 1111 1111 1111 5500 0000 0000 0004 ok", "cards [CARD_1] [CARD_2] ok"],
    ];
    for (const [input, expected] of cases) {
      const r = new Redactor();
      assert.equal(r.redact(input), expected, input);
      // What comes back is what was written, in its own digits and separators.
      assert.equal(r.restore(expected), input, input);
    }
  });

  test("a list of numbers is not read as cards at every offset", () => {
    // 2001 2002 2003 2004 passes Luhn; it is a stretch inside a list grouped in fours.
    for (const separator of [" ", "\n"]) {
      const text = `years: ${["2000", "2001", "2002", "2003", "2004", "2005"].join(separator)}`;
      assert.equal(new Redactor().redact(text), text);
    }
  });

  test("numbers in other scripts that are no PII keep their own digits", () => {
    const text = "في سنة ٢٠٢٦ طلب رقم ١٢٣٤٥ و ४१११ ११११ ११११ ११११ (not Luhn: ४१११ ११११ ११११ १११२)";
    assert.equal(
      new Redactor().redact(text),
      "في سنة ٢٠٢٦ طلب رقم ١٢٣٤٥ و [CARD_1] (not Luhn: ४१११ ११११ ११११ १११२)",
    );
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

  test("property: a generated phone number in any digit script is replaced whole", () => {
    fc.assert(
      fc.property(phoneForm, (phone) => {
        const r = new Redactor();
        const out = r.redact(`Call ${phone} today.`);
        assert.equal(out, "Call [PHONE_1] today.");
        assert.equal(r.restore(out), normalized(`Call ${phone} today.`));
      }),
      { numRuns: 300 },
    );
  });

  test("property: restoring gives back the text as written (normalised), digits and all", () => {
    fc.assert(
      fc.property(cardForm, emailForm, phoneForm, (card, email, phone) => {
        const text = `Card ${card}, mail ${email}, call ${phone}.`;
        const r = new Redactor();
        const out = r.redact(text);
        assert.equal(out, "Card [CARD_1], mail [EMAIL_1], call [PHONE_1].");
        assert.equal(r.restore(out), normalized(text));
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
