// The README says require() of the package works on Node 22 and later (Node loads the ESM
// build). Checked in a plain `node` (tsx would compile a second copy for require): a CommonJS
// caller gets the very modules `import` gets, from the root and the subpaths this app uses.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";

const SPECIFIERS = ["terreno-mcp", "terreno-mcp/ai", "terreno-mcp/chat", "terreno-mcp/testing"];

// CommonJS (node -e): require each specifier, import it, and compare every export.
const SCRIPT = `
const specifiers = ${JSON.stringify(SPECIFIERS)};
(async () => {
  for (const specifier of specifiers) {
    const required = require(specifier);
    const imported = await import(specifier);
    const names = Object.keys(imported).filter((name) => name !== "default");
    const differ = names.filter((name) => required[name] !== imported[name]);
    if (names.length === 0 || differ.length > 0) {
      throw new Error(specifier + ": require() and import differ on " + (differ.join(", ") || "everything"));
    }
  }
  console.log("ok");
})().catch((error) => {
  console.error(error.code ?? "", error.message);
  process.exit(1);
});
`;

test("require() gives the same modules as import, in plain Node", async () => {
  const run = promisify(execFile);
  const result = await run(process.execPath, ["-e", SCRIPT], { cwd: process.cwd() }).catch(
    (error: { stdout?: string; stderr?: string }) => error,
  );
  assert.equal(result.stdout?.trim(), "ok", result.stderr);
});
