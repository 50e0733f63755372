/**
 * A tiny reverse proxy on 127.0.0.1 that adds `Authorization: Bearer <token>` to every request
 * and forwards it to the app. Tools that cannot send auth headers (the conformance runner) talk
 * to it instead of the app. Every other header, `Host` and `Origin` included, is forwarded
 * unchanged, so the app's own checks (DNS-rebinding protection) answer exactly as they would
 * for a direct request.
 */
import http, { type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface AuthProxy {
  /** Base URL of the proxy, e.g. `http://127.0.0.1:43123`. */
  url: string;
  /** Requests forwarded so far. */
  count(): number;
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not forwarded.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "upgrade",
]);

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

export async function startAuthProxy(target: string, token: string): Promise<AuthProxy> {
  const upstream = new URL(target);
  let forwarded = 0;
  const server: Server = http.createServer((req, res) => {
    forwarded += 1;
    const headers = forwardable(req.headers);
    // The caller's own Authorization, if any, wins: the proxy only fills the gap.
    headers.authorization ??= `Bearer ${token}`;
    const outgoing = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers, // includes the client's Host header, unchanged
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, forwardable(answer.headers));
        answer.pipe(res);
      },
    );
    outgoing.on("error", (error) => {
      if (!res.headersSent) {
        res.writeHead(502, { "Content-Type": "text/plain" });
        res.end(`interop proxy: upstream error: ${error.message}`);
      } else {
        res.destroy(error);
      }
    });
    req.on("aborted", () => outgoing.destroy());
    req.pipe(outgoing);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => forwarded,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
