#!/usr/bin/env node
/**
 * The terreno-mcp CLI. `terreno-mcp tools <module> [--user <email>] [--json] [--verbose]`
 * prints the tools a caller sees. TypeScript modules need tsx:
 * `node --import tsx node_modules/terreno-mcp/dist/cli/index.js tools app.ts`.
 */
import { parseArgs } from "node:util";
import { loadApp } from "./loadApp.js";
import { toolsCommand } from "./toolsCommand.js";

const USAGE = `Usage: terreno-mcp tools <module> [--user <email> | --admin | --anonymous] [--json] [--verbose]

  <module>      a module exporting a TerrenoApp: default export, \`app\`, or a function
                returning one (default, createApp, create…App), possibly async.
                TypeScript modules: run with \`node --import tsx\`.
  --user        the tools this user sees (looked up by email in the app's userModel;
                needs MONGODB_URI unless the module connects).
  --admin       the tools a signed-in admin sees.
  --anonymous   the tools a caller with no credentials sees.
                Default: a signed-in user who is not an admin.
  --json        print JSON.
  --verbose     add descriptions and schemas.`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      user: { type: "string" },
      admin: { type: "boolean" },
      anonymous: { type: "boolean" },
      json: { type: "boolean" },
      verbose: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, modulePath] = positionals;
  if (values.help || command !== "tools" || !modulePath) {
    (values.help ? console.log : console.error)(USAGE);
    return values.help ? 0 : 2;
  }
  const app = await loadApp(modulePath);
  await toolsCommand(app, values);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`terreno-mcp: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
