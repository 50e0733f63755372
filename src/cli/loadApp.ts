/**
 * Finds the TerrenoApp a module exports: its default export, an `app` export, or a factory
 * (`default`, `createApp`, or any `create…App` export, e.g. the example's `createExampleApp`)
 * returning one, possibly async. Matched by shape rather than `instanceof`, so an app built
 * from the published package and one built from this repository's sources both load.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { TerrenoApp } from "../app/TerrenoApp.js";

function isTerrenoApp(value: unknown): value is TerrenoApp {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<TerrenoApp>;
  return typeof candidate.register === "function" && "toolDefinitions" in candidate;
}

async function appFrom(value: unknown): Promise<TerrenoApp | undefined> {
  if (isTerrenoApp(value)) return value;
  if (typeof value === "function") {
    const made = await (value as () => unknown)();
    if (isTerrenoApp(made)) return made;
  }
  return undefined;
}

export async function loadApp(modulePath: string): Promise<TerrenoApp> {
  const url = pathToFileURL(resolve(process.cwd(), modulePath)).href;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const hint = /\.(c|m)?tsx?$/.test(modulePath)
      ? " A TypeScript module needs tsx: run `node --import tsx node_modules/terreno-mcp/dist/cli/index.js tools …` (or `npx tsx …`)."
      : "";
    throw new Error(
      `Could not import ${modulePath}: ${error instanceof Error ? error.message : String(error)}.${hint}`,
    );
  }
  const factories = Object.keys(mod).filter((name) => /^create\w*App$/.test(name));
  for (const name of ["default", "app", ...factories]) {
    if (!(name in mod)) continue;
    const app = await appFrom(mod[name]);
    if (app) return app;
  }
  throw new Error(
    `${modulePath} exports no TerrenoApp: export one as \`default\` or \`app\`, or a function returning one (default, \`createApp\` or \`create…App\`). Its exports: ${Object.keys(mod).join(", ") || "none"}.`,
  );
}
