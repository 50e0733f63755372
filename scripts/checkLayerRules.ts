/**
 * Proves the layer rules fire: writes a tiny src/ tree with deliberate violations to a temp
 * directory, runs dependency-cruiser on it with this repository's .dependency-cruiser.cjs, and
 * checks that exactly the expected rules are reported (and that the allowed imports are not).
 * A rule with a typo in a path pattern would otherwise pass CI while checking nothing.
 * Run by `npm run check:deps`, after the real check.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "..");

/** Each fixture file, by path, and its source. */
const FILES: Record<string, string> = {
  "src/app/TerrenoApp.ts": "export class TerrenoApp {}\nexport type AppKind = 'app';\n",
  "src/core/types.ts": "export type User = { id: string };\n",
  "src/ops/rateLimit.ts": "export const limit = 1;\nexport type Limit = number;\n",
  // Allowed: the plugin contract names a service's type; a plugin imports the contract.
  "src/plugin/types.ts":
    "import type { Limit } from '../ops/rateLimit.js';\nexport type AppContext = { limit: Limit };\n",
  "src/mcp/endpoint.ts":
    "import type { AppContext } from '../plugin/types.js';\nexport type Ctx = AppContext;\n",
  // Violations: the core and an adapter import src/app (a type import counts too), and the
  // plugin contract loads a service's code.
  "src/core/violator.ts":
    "import { TerrenoApp } from '../app/TerrenoApp.js';\nexport const app = new TerrenoApp();\n",
  "src/chat/violator.ts":
    "import type { AppKind } from '../app/TerrenoApp.js';\nexport type Kind = AppKind;\n",
  "src/plugin/violator.ts":
    "import { limit } from '../ops/rateLimit.js';\nexport const doubled = limit * 2;\n",
};

const EXPECTED = [
  "core-no-higher-layer: src/core/violator.ts → src/app/TerrenoApp.ts",
  "no-import-into-app: src/chat/violator.ts → src/app/TerrenoApp.ts",
  "no-import-into-app: src/core/violator.ts → src/app/TerrenoApp.ts",
  "plugin-contract-types-only: src/plugin/violator.ts → src/ops/rateLimit.ts",
];

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

const root = mkdtempSync(join(tmpdir(), "terreno-layers-"));
try {
  for (const [path, source] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  writeFileSync(
    join(root, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "nodenext", strict: true }, include: ["src"] }),
  );
  let output: string;
  try {
    output = execFileSync(
      join(repo, "node_modules/.bin/depcruise"),
      ["src", "--config", join(repo, ".dependency-cruiser.cjs"), "--output-type", "json"],
      { cwd: root, encoding: "utf8" },
    );
  } catch (error) {
    // depcruise exits non-zero when it finds violations, which is what this check wants.
    output = (error as { stdout?: string }).stdout ?? "";
    if (!output) throw error;
  }
  const violations = (JSON.parse(output) as { summary: { violations: Violation[] } }).summary
    .violations;
  const found = violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  assert.deepEqual(found, EXPECTED, "the layer rules must report exactly the planted violations");
  console.log(`✔ the layer rules report the ${EXPECTED.length} planted violations, and only those`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
