/**
 * `TerrenoApp.start()`'s server lifecycle: listen, answer Node's own client errors as JSON, and
 * shut down gracefully (stop accepting, drain in-flight requests, close the app's connections).
 */
import type { Server } from "node:http";
import type { Express } from "express";
import type { Connection } from "mongoose";
import { answerClientErrorsAsJson } from "./clientErrors.js";

export interface StartOptions {
  port?: number;
  host?: string;
  /** Handle SIGTERM/SIGINT by draining and exiting. Default true. */
  handleSignals?: boolean;
  /** How long in-flight requests may take to finish on shutdown. Default 10 s. */
  shutdownTimeoutMs?: number;
  /**
   * How long an idle keep-alive connection stays open. Default 65 s: longer than the idle
   * timeout of the load balancers in front of most apps (60 s on AWS ALB and Google's), so the
   * balancer, not the app, closes an idle connection, and no request meets a socket the app has
   * just closed (Node's own default, 5 s, answers such requests with a reset, a 502 upstream).
   */
  keepAliveTimeoutMs?: number;
}

const DEFAULT_KEEP_ALIVE_MS = 65_000;

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting, finishes in-flight requests, closes the database connection. */
  close(): Promise<void>;
}

/** What the server needs from its app at shutdown. */
export interface ServeHooks {
  /** Called first: the app starts refusing new requests (503 shutting_down). */
  onShutdown(): void;
  /** The connections the app's models live on, closed once requests have drained. */
  connections(): Iterable<Connection>;
}

async function shutdown(server: Server, timeoutMs: number, hooks: ServeHooks): Promise<void> {
  hooks.onShutdown();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  clearTimeout(timer);
  // The connections the app's models live on, whichever Mongoose instance they belong to.
  await Promise.all([...hooks.connections()].map((connection) => connection.close()));
}

export async function serve(
  app: Express,
  startOptions: StartOptions,
  hooks: ServeHooks,
): Promise<RunningServer> {
  const port = startOptions.port ?? Number(process.env.PORT ?? 4000);
  const host = startOptions.host ?? process.env.HOST ?? "127.0.0.1";
  // Express 5 hands listen errors (EADDRINUSE) to this callback rather than emitting them.
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(s)));
  });
  answerClientErrorsAsJson(server);
  server.keepAliveTimeout = startOptions.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_MS;
  // Node requires the header timeout above the keep-alive one, or a slow request's headers on a
  // reused connection are cut at the keep-alive deadline.
  server.headersTimeout = Math.max(server.headersTimeout, server.keepAliveTimeout + 1_000);
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= shutdown(server, startOptions.shutdownTimeoutMs ?? 10_000, hooks);
    return closing;
  };
  if (startOptions.handleSignals ?? true) {
    const onSignal = () => {
      close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  }
  return { server, url: `http://${host}:${actualPort}`, close };
}
