// `npm run check:types`: the published types hold no stray `any`. Builds the package, then
// counts every `any` type in dist/**/*.d.ts (parsed, so comments and words don't count) and
// fails on one outside the allow list below: a few named, documented escape hatches.
// With --consumer it also packs the tarball, installs it into a temp app with only the
// install line's packages (mongoose, express), and runs `tsc --skipLibCheck false` over a file
// importing the package, under each TypeScript in CONSUMER_TYPESCRIPTS.
// Usage: npm run check:types [-- --no-build] [-- --consumer]

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");

/**
 * The escape hatches: `file: declaration → how many` `any`s it may hold, and why. Anything else
 * fails the check; a count that drops below its allowance is reported, so the list stays tight.
 */
const ALLOWED: Record<string, { count: number; why: string }> = {
  "schema/types.d.ts: AnyModel": {
    count: 2,
    why: "Model<any, …, any>: any model, whatever its document type and virtuals (the core reads schema metadata only; with no virtuals, Mongoose's inferred {id} made assignability depend on the compiler's comparison order)",
  },
  "openapi/types.d.ts: OpenApiObject": {
    count: 1,
    why: "an OpenAPI document is free-form JSON, read by tools that type it themselves",
  },
};

/** `any` count per `file: top-level declaration` of the .d.ts files under `dir`. */
export function countAny(dir: string): Map<string, number> {
  const counts = new Map<string, number>();
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".d.ts")) countFile(full, path.relative(dir, full), counts);
    }
  };
  walk(dir);
  return counts;
}

function declarationName(statement: ts.Statement): string {
  const named = statement as ts.Statement & { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.map((d) => d.name.getText()).join(",");
  }
  return ts.SyntaxKind[statement.kind];
}

function countFile(file: string, relative: string, counts: Map<string, number>): void {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  for (const statement of source.statements) {
    let n = 0;
    const visit = (node: ts.Node) => {
      if (node.kind === ts.SyntaxKind.AnyKeyword) n += 1;
      ts.forEachChild(node, visit);
    };
    visit(statement);
    if (n > 0) {
      const key = `${relative.split(path.sep).join("/")}: ${declarationName(statement)}`;
      counts.set(key, (counts.get(key) ?? 0) + n);
    }
  }
}

function run(command: string, args: string[], cwd: string): { code: number; output: string } {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: process.env });
  return { code: result.status ?? 1, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

function checkAnyCount(): boolean {
  const counts = countAny(dist);
  let total = 0;
  let ok = true;
  for (const [key, n] of [...counts].sort()) {
    total += n;
    const allowed = ALLOWED[key];
    if (!allowed) {
      console.error(`  NEW   ${key}: ${n} any`);
      ok = false;
    } else if (n > allowed.count) {
      console.error(`  MORE  ${key}: ${n} any (allowed ${allowed.count})`);
      ok = false;
    } else if (n < allowed.count) {
      console.log(`  fewer ${key}: ${n} any (allowed ${allowed.count}); lower the allowance`);
    }
  }
  console.log(
    `check:types: ${total} any in dist/**/*.d.ts (${Object.keys(ALLOWED).length} allowed)`,
  );
  if (!ok) console.error("check:types: type the new `any`, or name it in ALLOWED with a reason.");
  return ok;
}

/** Each TypeScript a consumer may compile the published types with (5.9, and 7's native tsc). */
const CONSUMER_TYPESCRIPTS = ["typescript@5.9", "typescript@7.0.2"];

const CONSUMER_SOURCE = `// Imports the package as an app does, with the install line's packages only.
import express from "express";
import mongoose, { Schema } from "mongoose";
import {
  authUserFields,
  authUserPlugin,
  IsAuthenticated,
  IsOwner,
  modelRouter,
  TerrenoApp,
  type User,
} from "terreno-mcp";
import { createTestDatabase } from "terreno-mcp/testing";

declare module "terreno-mcp" {
  interface UserFields {
    name?: string | null;
  }
}

const userSchema = new Schema({ ...authUserFields, name: String }, { timestamps: true });
userSchema.plugin(authUserPlugin);
const UserModel = mongoose.model("User", userSchema);
const Project = mongoose.model(
  "Project",
  new Schema({
    name: { type: String, required: true },
    meta: { type: Map, of: String },
    milestones: [{ title: String, due: Date }],
    settings: { theme: String },
    ownerId: { type: Schema.Types.ObjectId, ref: "User" },
  }),
);
const app = new TerrenoApp({ userModel: UserModel }).register(
  modelRouter(Project, {
    permissions: { list: [IsAuthenticated], update: [IsOwner] },
    queryFields: ["name", "settings.theme", "milestones.title"],
    postUpdate: (project) => {
      project.meta?.set("updated", "yes");
    },
  }),
);
modelRouter(UserModel, { permissions: { list: [IsAuthenticated] }, queryFields: ["email"] });
// @ts-expect-error: no such field
modelRouter(Project, { permissions: {}, queryFields: ["no_such_field"] });
export const name = (user: User): string | null | undefined => user.name;
export const server: express.Express = app.build();
export const db = createTestDatabase;
`;

function checkConsumer(): boolean {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "terreno-types-"));
  // dist/ was just built (or, with --no-build, is taken as built): the prepack build is skipped.
  const packed = run(
    "npm",
    ["pack", "--json", "--ignore-scripts", "--pack-destination", work],
    root,
  );
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.output}`);
  const tarball = path.join(
    work,
    JSON.parse(packed.output.slice(packed.output.indexOf("[")))[0].filename,
  );
  let ok = true;
  for (const typescript of CONSUMER_TYPESCRIPTS) {
    const app = path.join(work, typescript.replace(/[^a-z0-9.]+/gi, "-"));
    fs.mkdirSync(path.join(app, "src"), { recursive: true });
    fs.writeFileSync(
      path.join(app, "package.json"),
      JSON.stringify({ name: "types-consumer", private: true, type: "module" }),
    );
    fs.writeFileSync(path.join(app, ".npmrc"), "omit-lockfile-registry-resolved=true\n");
    fs.writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: [],
        },
        include: ["src"],
      }),
    );
    fs.writeFileSync(path.join(app, "src", "app.ts"), CONSUMER_SOURCE);
    const args = ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball];
    const installed = run("npm", [...args, "mongoose", "express", typescript], app);
    if (installed.code !== 0) throw new Error(`npm install failed:\n${installed.output}`);
    const bin = "tsc";
    const started = Date.now();
    const checked = run(path.join(app, "node_modules", ".bin", bin), ["-p", "."], app);
    const version = run(path.join(app, "node_modules", ".bin", bin), ["--version"], app);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `  ${checked.code === 0 ? "ok  " : "FAIL"}  ${version.output.trim()} (${seconds} s)`,
    );
    if (checked.code !== 0) {
      console.error(checked.output);
      ok = false;
    }
  }
  fs.rmSync(work, { recursive: true, force: true });
  return ok;
}

const args = process.argv.slice(2);
if (!args.includes("--no-build")) {
  const built = run("npm", ["run", "build"], root);
  if (built.code !== 0) {
    console.error(built.output);
    process.exit(1);
  }
}
let ok = checkAnyCount();
if (args.includes("--consumer")) ok = checkConsumer() && ok;
process.exit(ok ? 0 : 1);
