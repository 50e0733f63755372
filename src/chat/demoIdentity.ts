/**
 * How the offline demo model is recognised: its model id, and the label `GET /chat/info` gives
 * it. Apart from demoModel.ts so that `terreno-mcp/chat` can name the demo without loading it
 * (the model itself is in `terreno-mcp/chat/demo`).
 */
export const DEMO_MODEL_ID = "terreno-demo";

export const DEMO_MODEL_LABEL = "Offline demo (rule-based, not an LLM)";
