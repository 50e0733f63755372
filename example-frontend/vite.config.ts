/**
 * The example's web page: Vite + React, built into `example-frontend/dist`, which the example
 * backend serves at `/`. The page imports the hooks from this repo's source
 * (`../src/react/index.ts`), so it is built straight from a checkout, without publishing.
 *
 * `npx vite --config example-frontend/vite.config.ts` serves it with hot reload on :5173 and
 * forwards the API routes to `npm run example` on :4000.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const root = path.dirname(fileURLToPath(import.meta.url));
const backend = process.env.EXAMPLE_BACKEND_URL ?? "http://127.0.0.1:4000";

export default defineConfig({
  root,
  base: "/",
  // No public/ folder: every asset is bundled, so nothing is fetched from elsewhere.
  publicDir: false,
  plugins: [react()],
  build: {
    outDir: path.join(root, "dist"),
    emptyOutDir: true,
    // One bundle, served by the example itself (React, the AI SDK, the Markdown renderer):
    // about 590 kB unminified-gzip-free, which is fine for a local demo page.
    chunkSizeWarningLimit: 800,
  },
  server: {
    proxy: Object.fromEntries(["/auth", "/chat", "/todos", "/mcp"].map((p) => [p, backend])),
  },
});
