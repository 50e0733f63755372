/**
 * The frame every bench server child shares (servers/ours.ts, limiter.ts, prod.ts, floor.ts):
 * its settings from the environment, each app on its own loopback port, the ports reported to
 * the harness, and a stop that closes them. Nothing of src/ here: the floor uses it too.
 */
import type { RequestListener, Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { send, serveParentRequests } from "./ipc.js";

/** The named environment variables, or an error naming the script and what it lacks. */
export function benchEnv<const K extends string>(script: string, names: K[]): Record<K, string> {
  const missing = names.filter((name) => !process.env[name]);
  if (missing.length > 0) throw new Error(`${script} needs ${missing.join(" and ")}`);
  return Object.fromEntries(names.map((name) => [name, process.env[name]])) as Record<K, string>;
}

function listen(app: RequestListener): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(app);
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

/**
 * Serves each app on its own port, reports `{name: port}` as ready, and on the harness's stop
 * closes every server, then runs `close` (the database connection).
 */
export async function serveApps(
  apps: Record<string, RequestListener>,
  close: () => Promise<void>,
): Promise<void> {
  const servers: Record<string, Server> = {};
  for (const [name, app] of Object.entries(apps)) servers[name] = await listen(app);
  serveParentRequests(async () => {
    for (const server of Object.values(servers)) {
      server.closeAllConnections();
      server.close();
    }
    await close();
  });
  send({
    type: "ready",
    ports: Object.fromEntries(
      Object.entries(servers).map(([name, server]) => [
        name,
        (server.address() as AddressInfo).port,
      ]),
    ),
  });
}
