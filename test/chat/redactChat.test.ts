/**
 * Issue 33.10 on the surface it was seen on: POST /chat with `redactPII`. A card in Arabic-Indic
 * digits, one split by slashes, a phone in Arabic digits, a quoted-local-part email and an
 * address literal reached the model. Now the model sees placeholders, and the tool and the user
 * get back what was written, in its own digits.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import type { Express } from "express";
import type { PlainObject } from "../../src/core/types.js";
import { signUp, type TestUser } from "../helpers/auth.js";
import { useTestDatabase } from "../helpers/database.js";
import { Todo } from "../helpers/models.js";
import { buildChatApp, postChat, scriptedModel, userMessage } from "./helpers.js";

useTestDatabase("chat_redact_forms");

const ARABIC_CARD = "٤١١١ ١١١١ ١١١١ ١١١١";
const SLASHED_CARD = "5500/0000/0000/0004";
const ARABIC_PHONE = "+٩٦٦ ٥٠ ١٢٣ ٤٥٦٧";
const QUOTED_EMAIL = '"john doe"@example.com';
const LITERAL_EMAIL = "ops@[192.0.2.1]";

describe("chat redaction of the forms issue 33 found", () => {
  let ada: TestUser;
  let setupApp: Express;
  before(async () => {
    setupApp = buildChatApp({ model: scriptedModel() });
    ada = await signUp(setupApp, "ada");
  });

  test("the model sees placeholders; the tool and the user get what was written", async () => {
    const model = scriptedModel([
      { tools: [["todos_create", { title: "Pay [CARD_1] and [CARD_2], call [PHONE_1]" }]] },
      { text: ["Done; I will write to [EMAIL_1] and [EMAIL_2]."] },
    ]);
    const app = buildChatApp({ model, redactPII: true, approval: "none" });
    const reply = await postChat(app, ada, {
      messages: [
        userMessage(
          `Pay ${ARABIC_CARD} and ${SLASHED_CARD}, call ${ARABIC_PHONE}, ` +
            `mail ${QUOTED_EMAIL} and ${LITERAL_EMAIL}`,
        ),
      ],
    });
    assert.equal(reply.status, 200);
    const prompt = JSON.stringify(model.doStreamCalls[0].prompt);
    for (const placeholder of ["CARD_1", "CARD_2", "PHONE_1", "EMAIL_1", "EMAIL_2"]) {
      assert.match(prompt, new RegExp(`\\[${placeholder}\\]`));
    }
    // No digit of the card or phone, in any script, and neither address.
    assert.doesNotMatch(prompt, /[٠-٩]|5500|0004|john doe|192\.0\.2\.1/);

    const todo = await Todo.findOne({ ownerId: ada.userId, title: /^Pay / }).lean<PlainObject>();
    assert.equal(todo?.title, `Pay ${ARABIC_CARD} and ${SLASHED_CARD}, call ${ARABIC_PHONE}`);
    assert.equal(reply.text, `Done; I will write to ${QUOTED_EMAIL} and ${LITERAL_EMAIL}.`);
  });
});
