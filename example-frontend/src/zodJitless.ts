/**
 * Imported first by main.tsx, before any module that uses zod (the AI SDK, ext-apps' bridge):
 * zod then never probes whether `new Function` works, which under this page's CSP (no eval) is
 * a violation report. zod reads this global config on every parse.
 */
const scope = globalThis as { __zod_globalConfig?: Record<string, unknown> };
scope.__zod_globalConfig = { ...scope.__zod_globalConfig, jitless: true };
