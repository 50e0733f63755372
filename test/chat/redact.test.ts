/** The PII redaction module: placeholders out, originals back. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  luhnValid,
  partialPlaceholderLength,
  Redactor,
  redactModelMessage,
} from "../../src/chat/redact.js";

describe("redact", () => {
  test("emails, phones and Luhn-valid cards become numbered placeholders", () => {
    const r = new Redactor();
    const text =
      "Mail ada@example.com or bob.smith+x@mail.co.uk, call +1 (555) 123-4567 or 555.987.6543, " +
      "card 4111 1111 1111 1111 and 5500-0000-0000-0004.";
    const out = r.redact(text);
    assert.equal(
      out,
      "Mail [EMAIL_1] or [EMAIL_2], call [PHONE_1] or [PHONE_2], card [CARD_1] and [CARD_2].",
    );
    assert.equal(r.restore(out), text);
  });

  test("the same value keeps its placeholder; numbering follows first appearance", () => {
    const r = new Redactor();
    assert.equal(
      r.redact("a@b.io then c@d.io then a@b.io"),
      "[EMAIL_1] then [EMAIL_2] then [EMAIL_1]",
    );
    const again = new Redactor();
    assert.equal(again.redact("a@b.io then c@d.io"), "[EMAIL_1] then [EMAIL_2]");
  });

  test("Luhn-invalid digit runs, ids, dates and short numbers are left alone", () => {
    const r = new Redactor();
    const text =
      "card 4111 1111 1111 1112, id 665f1c2e8b3a4d0012345678, at 2026-12-01T04:29:13.000Z, " +
      "order 12345, priority 3, year 2026";
    assert.equal(r.redact(text), text);
    assert.equal(r.size, 0);
  });

  test("luhnValid", () => {
    assert.equal(luhnValid("4111111111111111"), true);
    assert.equal(luhnValid("4111111111111112"), false);
    assert.equal(luhnValid("4111"), false);
    assert.equal(luhnValid("378282246310005"), true);
  });

  test("restore leaves unknown placeholders and plain text untouched", () => {
    const r = new Redactor();
    r.redact("x@y.io");
    assert.equal(
      r.restore("[EMAIL_1] [EMAIL_9] [PHONE_1] hello"),
      "x@y.io [EMAIL_9] [PHONE_1] hello",
    );
  });

  test("deep redaction and restoration of JSON values keep keys and non-strings", () => {
    const r = new Redactor();
    const value = { "a@b.io": "a@b.io", list: [1, "call 555-123-4567", null], ok: true };
    const redacted = r.redactDeep(value);
    assert.deepEqual(redacted, {
      "a@b.io": "[EMAIL_1]",
      list: [1, "call [PHONE_1]", null],
      ok: true,
    });
    assert.deepEqual(r.restoreDeep(redacted), value);
  });

  test("partialPlaceholderLength finds a placeholder cut off mid-stream", () => {
    assert.equal(partialPlaceholderLength("Hello [EMA"), 4);
    assert.equal(partialPlaceholderLength("Hello [EMAIL_1"), 8);
    assert.equal(partialPlaceholderLength("Hello ["), 1);
    assert.equal(partialPlaceholderLength("Hello [EMAIL_1]"), 0);
    assert.equal(partialPlaceholderLength("Hello"), 0);
  });

  test("model messages: user text, tool inputs and tool results are redacted, system kept", () => {
    const r = new Redactor();
    assert.deepEqual(redactModelMessage(r, { role: "system", content: "admin@corp.io" }), {
      role: "system",
      content: "admin@corp.io",
    });
    assert.deepEqual(redactModelMessage(r, { role: "user", content: "I am ada@example.com" }), {
      role: "user",
      content: "I am [EMAIL_1]",
    });
    const assistant = redactModelMessage(r, {
      role: "assistant",
      content: [
        { type: "text", text: "Writing to ada@example.com" },
        { type: "tool-call", toolCallId: "c1", toolName: "t", input: { to: "ada@example.com" } },
      ],
    });
    assert.deepEqual(assistant.content, [
      { type: "text", text: "Writing to [EMAIL_1]" },
      { type: "tool-call", toolCallId: "c1", toolName: "t", input: { to: "[EMAIL_1]" } },
    ]);
    const tool = redactModelMessage(r, {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "t",
          output: { type: "json", value: { phone: "+44 20 7946 0958" } },
        },
      ],
    });
    assert.deepEqual(tool.content, [
      {
        type: "tool-result",
        toolCallId: "c1",
        toolName: "t",
        output: { type: "json", value: { phone: "[PHONE_1]" } },
      },
    ]);
  });
});
