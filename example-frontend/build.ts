/**
 * ensureFrontendBuilt(): builds the example's web page into `example-frontend/dist` when it is
 * missing (a fresh clone), older than its sources (after a pull or an edit), or when asked to,
 * with Vite's JS API, and returns that directory.
 * `npm run example` and the browser test call it; `node --import tsx example-frontend/build.ts`
 * rebuilds by hand.
 *
 * Builds can run at the same time (two test processes, the Mongoose 8 rerun next to a running
 * example), so each one writes to a directory of its own and then renames it into place: a
 * reader sees either no `dist` or a complete one, never a half-written one.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const FRONTEND_DIR = path.dirname(fileURLToPath(import.meta.url));
export const FRONTEND_DIST = path.join(FRONTEND_DIR, "dist");

export interface EnsureFrontendOptions {
  /** Build even when `dist` is there and up to date. */
  force?: boolean;
}

/** What the page is built from: a change to any of these makes `dist` stale. */
const SOURCES = [
  path.join(FRONTEND_DIR, "index.html"),
  path.join(FRONTEND_DIR, "vite.config.ts"),
  path.join(FRONTEND_DIR, "src"),
  path.resolve(FRONTEND_DIR, "../src/react"),
];

function newestMtime(entry: string): number {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file changes its directory's mtime
  for (const name of fs.readdirSync(entry)) {
    newest = Math.max(newest, newestMtime(path.join(entry, name)));
  }
  return newest;
}

/** Why `dist` must be (re)built, or undefined when it is there and newer than its sources. */
function staleness(): string | undefined {
  const index = fs.statSync(path.join(FRONTEND_DIST, "index.html"), { throwIfNoEntry: false });
  if (!index) return "first start";
  const newest = Math.max(...SOURCES.map(newestMtime));
  return newest > index.mtimeMs ? "its sources changed" : undefined;
}

function isBuilt(dir: string): boolean {
  return fs.existsSync(path.join(dir, "index.html"));
}

/**
 * Moves the finished build `staging` to `dist`. An existing `dist` is an older build (or one a
 * concurrent build just published): it is moved aside first, then removed.
 */
function publish(staging: string): void {
  const retired: string[] = [];
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        fs.renameSync(staging, FRONTEND_DIST);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // rename() onto a non-empty directory fails; anything else is a real failure.
        if (!(code === "ENOTEMPTY" || code === "EEXIST") || attempt >= 3) {
          // A concurrent build keeps replacing it: its result is as good as ours.
          if (isBuilt(FRONTEND_DIST)) return;
          throw error;
        }
      }
      const aside = `${staging}-old-${attempt}`;
      try {
        fs.renameSync(FRONTEND_DIST, aside);
        retired.push(aside);
      } catch (error) {
        // Another build moved it aside first: try again.
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    for (const dir of retired) fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function ensureFrontendBuilt(
  log: (message: string) => void,
  options: EnsureFrontendOptions = {},
): Promise<string> {
  const reason = options.force === true ? "asked to" : staleness();
  if (!reason) return FRONTEND_DIST;

  log(`Building the example page (${reason})…`);
  const startedAt = performance.now();
  // Loaded here, not at the top: a start with the page already built never loads Vite.
  const { build } = await import("vite");
  const staging = path.join(FRONTEND_DIR, `.build-${process.pid}-${Date.now().toString(36)}`);
  // Vite sets NODE_ENV=production in this process when it is unset. Left behind, it would turn
  // the server that called us (or every test process the test runner spawns) into production:
  // Better Auth, for one, then switches on its in-memory rate limiter.
  const nodeEnv = process.env.NODE_ENV;
  try {
    await build({
      configFile: path.join(FRONTEND_DIR, "vite.config.ts"),
      logLevel: "warn",
      build: { outDir: staging, emptyOutDir: true },
    });
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  publish(staging);
  log(`Built the example page in ${((performance.now() - startedAt) / 1000).toFixed(1)} s.`);
  return FRONTEND_DIST;
}

// `node --import tsx example-frontend/build.ts`: rebuild now.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureFrontendBuilt((message) => process.stderr.write(`${message}\n`), { force: true }).then(
    (dir) => process.stderr.write(`${dir}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
