/**
 * `better-auth` is an optional peer dependency: importing the package root must never load it,
 * only the `terreno-mcp/better-auth` subpath may. Each check runs in a fresh Node process with a
 * module resolve hook that records every URL resolved (ESM imports, including tsx's), plus the
 * CommonJS `require.cache` at the end.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Runs in the loader thread: appends each resolved URL to the file it is given. */
const RECORD_HOOK = `
import { appendFileSync } from "node:fs";
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(file, result.url + "\\n");
  return result;
}`;

/** Every module a fresh `node --import tsx` process loads to import `entry` (a path under ROOT). */
function modulesLoadedBy(entry: string): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "terreno-root-import-"));
  const file = path.join(dir, "loaded.txt");
  fs.writeFileSync(file, "");
  const hookUrl = `data:text/javascript,${encodeURIComponent(RECORD_HOOK)}`;
  const script = `
    const { register } = require("node:module");
    const { appendFileSync } = require("node:fs");
    register(${JSON.stringify(hookUrl)}, { data: { file: ${JSON.stringify(file)} } });
    import(${JSON.stringify(pathToFileURL(path.join(ROOT, entry)).href)}).then(
      (exports) => {
        appendFileSync(${JSON.stringify(file)}, Object.keys(require.cache).join("\\n") + "\\n");
        if (Object.keys(exports).length === 0) process.exitCode = 3;
      },
      (error) => { console.error(error); process.exitCode = 2; },
    );`;
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  try {
    const child = spawnSync(process.execPath, ["--import", "tsx", "-e", script], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(child.status, 0, `importing ${entry} failed:\n${child.stderr}`);
    return fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const isBetterAuth = (url: string) => /node_modules[\\/](@better-auth|better-auth)[\\/]/.test(url);

test("importing the package root loads no better-auth module", () => {
  const loaded = modulesLoadedBy("src/index.ts");
  assert.ok(
    loaded.some((url) => url.includes("/src/app/TerrenoApp.ts")),
    "the recorder saw the root's own modules",
  );
  assert.ok(loaded.some((url) => /node_modules[\\/]mongoose[\\/]/.test(url)));
  assert.deepEqual(loaded.filter(isBetterAuth), []);
});

test("the terreno-mcp/better-auth entry does load better-auth (the check can fail)", () => {
  const loaded = modulesLoadedBy("src/auth/betterAuth.ts");
  assert.ok(loaded.some(isBetterAuth), "better-auth was loaded by its own entry point");
});

test("package.json: better-auth is an optional peer, and only the subpath points at it", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  assert.equal(pkg.dependencies?.["better-auth"], undefined);
  assert.ok(pkg.peerDependencies?.["better-auth"]);
  assert.equal(pkg.peerDependenciesMeta?.["better-auth"]?.optional, true);
  assert.ok(pkg.devDependencies?.["better-auth"], "kept for the tests");
  assert.equal(pkg.exports["./better-auth"].default, "./dist/auth/betterAuth.js");
});
