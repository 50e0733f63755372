/**
 * The chat route's own failures, registered as error codes with the framework so they leave
 * through its one error table and body: the model is not configured (503) or the model's API
 * failed before any text was sent (502).
 */
import { defineErrorCode } from "../../src/index.js";

export const LLM_NOT_CONFIGURED = defineErrorCode("llm_not_configured", {
  status: 503,
  title: "Service Unavailable",
});

export const LLM_FAILED = defineErrorCode("llm_failed", { status: 502, title: "Bad Gateway" });
