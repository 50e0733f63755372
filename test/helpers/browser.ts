/**
 * Debian's chromium driven by playwright-core (never a downloaded browser). A machine without
 * chromium skips browser suites, saying why; CI (.ci/run) installs it, so there they run.
 */
import { execFileSync } from "node:child_process";
import { type Browser, chromium } from "playwright-core";

function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return (
      execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** `false` when chromium can run here (or in CI), else the reason to skip a browser suite. */
export function browserSkipReason(): false | string {
  return chromiumPath() || process.env.CI
    ? false
    : "chromium is not installed (apt-get install -y chromium, or set CHROMIUM_PATH)";
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath() ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
