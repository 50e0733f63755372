/**
 * The conformance runner's authorization-server scenarios (`conformance authorization`, 0.2.x)
 * against the example app's built-in OAuth server. The grant scenario is interactive: it prints
 * an authorization URL and waits for the redirect on its own callback listener
 * (127.0.0.1:<port>/callback). Here the "person" is the plain-HTTP sign-in and consent of
 * test/oauth/httpFlow.ts, and the redirect is delivered to the runner with one GET.
 */
import path from "node:path";
import { findFreePort } from "../../src/testing/ferretdbServer.js";
import { registerClient, signInAndConsent } from "../oauth/httpFlow.js";
import { type ConformanceRun, type Item, runConformance } from "./conformance.js";
import { type ExampleServer, PASSWORD } from "./exampleServer.js";
import { ROOT_DIR } from "./tools.js";

export interface AuthorizationRun {
  items: Item[];
  command: string;
}

export async function runAuthorizationConformance(
  base: Pick<ConformanceRun, "id" | "runner" | "version" | "required">,
  node22: string,
  app: ExampleServer,
  outputDir: string,
  expected: Record<string, string>,
): Promise<AuthorizationRun> {
  // The runner only takes a port for its callback listener, and the client must be registered
  // (by DCR, as MCP clients do) with that exact redirect URI before the runner starts.
  const port = await findFreePort();
  const mcpUrl = `${app.url}/mcp`;
  const clientId = await registerClient(app.url, `http://127.0.0.1:${port}/callback`);
  const conf: ConformanceRun = {
    ...base,
    command: "authorization",
    // Both scenarios in one run, no --scenario: the grant reads the metadata scenario's result.
    // `--resource` as MCP clients send it (RFC 8707): the token is for the app's /mcp.
    args: ["--url", app.url, "--client-id", clientId, "--port", `${port}`, "--resource", mcpUrl],
  };

  const abort = new AbortController();
  const flowErrors: string[] = [];
  let stdout = "";
  let flow: Promise<void> | undefined;
  const onStdout = (text: string): void => {
    stdout += text;
    // The one (complete) line that is a URL on the app: the authorization request.
    const url = stdout
      .split("\n")
      .slice(0, -1)
      .find((line) => line.startsWith(`${app.url}/`));
    if (flow || !url) return;
    flow = (async () => {
      const landed = await signInAndConsent(url.trim(), {
        email: app.user.email,
        password: PASSWORD,
      });
      if (!landed.location?.startsWith(`http://127.0.0.1:${port}/callback`)) {
        throw new Error(
          `sign-in and consent ended at ${landed.status} ${landed.location ?? landed.body.slice(0, 300)}`,
        );
      }
      await fetch(landed.location, { signal: AbortSignal.timeout(10_000) }); // the runner's listener
    })().catch((error: unknown) => {
      flowErrors.push(error instanceof Error ? error.message : String(error));
      abort.abort(); // otherwise the runner waits 5 minutes for a callback that never comes
    });
  };
  const outcome = await runConformance(conf, node22, mcpUrl, outputDir, expected, {
    onStdout,
    signal: abort.signal,
    timeoutMs: 60_000,
  });
  await flow;
  const items = [...outcome.items];
  for (const detail of flowErrors) {
    items.push({
      group: `conformance ${conf.version} (${conf.id})`,
      name: "sign-in and consent",
      status: "fail",
      detail,
    });
  }
  const command = `node22 ${path.relative(ROOT_DIR, conf.runner)} authorization ${conf.args.join(" ")} -o ${path.relative(ROOT_DIR, outputDir)}`;
  return { items, command };
}
