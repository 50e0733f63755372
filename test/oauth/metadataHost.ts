/**
 * A local https server that serves Client ID Metadata Documents for the CIMD tests, with a
 * self-signed certificate made at test time (for 127.0.0.1 and the name `cimd.test`). Each path
 * answers with a handler the test sets, and every request is counted.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import { after, before } from "node:test";
import { generate } from "selfsigned";
import { listenOn } from "../helpers/mcpClients.js";

export type DocumentHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface MetadataHost {
  /** `https://127.0.0.1:PORT` */
  origin: string;
  port: number;
  /** The certificate (PEM), to trust through the `ca` option. */
  cert: string;
  /** Serve `path` with `handler`. */
  route(path: string, handler: DocumentHandler): void;
  /** How many requests reached `path`. */
  hits(path: string): number;
  close(): Promise<void>;
}

/** Answers `document` as JSON, with `headers`. */
export const json =
  (document: unknown, headers: Record<string, string> = {}): DocumentHandler =>
  (_req, res) => {
    const body = JSON.stringify(document);
    res.writeHead(200, { "content-type": "application/json", ...headers });
    res.end(body);
  };

async function startMetadataHost(): Promise<MetadataHost> {
  const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
    keyType: "ec",
    curve: "P-256",
    extensions: [
      {
        name: "subjectAltName",
        altNames: [
          { type: 7, ip: "127.0.0.1" },
          { type: 2, value: "cimd.test" },
        ],
      },
    ],
  });
  const routes = new Map<string, DocumentHandler>();
  const counts = new Map<string, number>();
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const path = new URL(req.url ?? "/", "https://127.0.0.1").pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const handler = routes.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  const { url, port, close } = await listenOn(server);
  return {
    origin: url,
    port,
    cert: pems.cert,
    route: (path, handler) => routes.set(path, handler),
    hits: (path) => counts.get(path) ?? 0,
    close,
  };
}

/**
 * A metadata host for the enclosing suite: started before its tests, closed after them. Read it
 * inside a test or hook.
 */
export function useMetadataHost(): MetadataHost {
  let started: MetadataHost | undefined;
  before(async () => {
    started = await startMetadataHost();
  });
  after(() => started?.close());
  const current = (): MetadataHost => {
    if (!started) throw new Error("the metadata host is not started yet");
    return started;
  };
  return {
    get origin() {
      return current().origin;
    },
    get port() {
      return current().port;
    },
    get cert() {
      return current().cert;
    },
    route: (path, handler) => current().route(path, handler),
    hits: (path) => current().hits(path),
    close: async () => {
      await started?.close();
    },
  };
}
