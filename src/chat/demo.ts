/**
 * `terreno-mcp/chat/demo`: the offline, rule-based demo model for demos and tests (not an LLM).
 * An entry point of its own, so that `terreno-mcp/chat` does not carry it into production apps.
 */
export { DEMO_MODEL_ID, DEMO_MODEL_LABEL } from "./demoIdentity.js";
export { createDemoModel, type DemoModelOptions } from "./demoModel.js";
