/**
 * Fetches a Client ID Metadata Document without letting its URL steer this server (SSRF):
 * https only; the host is resolved once, every address it resolves to must pass the address
 * policy, and the connection goes to those vetted addresses (the socket's own lookup is the
 * vetting one, so DNS rebinding cannot switch it); no redirects; a byte and a time limit.
 */
import { lookup as dnsLookup } from "node:dns";
import type { IncomingMessage } from "node:http";
import { request } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { rootCertificates } from "node:tls";
import type { AddressPolicy } from "./clientMetadataAddresses.js";
import { ClientMetadataRefusal } from "./clientMetadataRefusal.js";

interface ResolvedAddress {
  address: string;
  family: number;
}

export interface MetadataFetchPolicy {
  addresses: AddressPolicy;
  /** Certificates trusted beside the system's roots (PEM). */
  ca?: string[];
  maxBytes: number;
  timeoutMs: number;
  /** Host name resolution; default the system resolver (dns.lookup, every address). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
}

export interface FetchedDocument {
  /** The parsed JSON body. */
  body: unknown;
  /** The response's Cache-Control header, if any. */
  cacheControl?: string;
}

const systemResolve = (hostname: string) =>
  new Promise<ResolvedAddress[]>((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/** The https URL a client_id must be: a path, no fragment, no credentials (CIMD §3). */
export function metadataDocumentUrl(clientId: string): URL {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new ClientMetadataRefusal("client_metadata_url", "client_id is not a URL");
  }
  if (url.protocol !== "https:") {
    throw new ClientMetadataRefusal("client_metadata_url", "client_id must be an https URL");
  }
  if (url.pathname === "/" || url.hash || url.username || url.password) {
    throw new ClientMetadataRefusal(
      "client_metadata_url",
      "client_id must have a path and no fragment or credentials",
    );
  }
  return url;
}

const refusedAddress = (hostname: string, address: string) =>
  new ClientMetadataRefusal(
    "client_metadata_address",
    `${hostname === address ? address : `${hostname} resolves to ${address}, which`} is a private, loopback or other special-use address`,
  );

/** The socket's lookup: resolves, refuses the host if any address is refused, else answers. */
function vettingLookup(policy: MetadataFetchPolicy): LookupFunction {
  const resolve = policy.resolve ?? systemResolve;
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.find(({ address }) => policy.addresses.refuses(address));
        if (refused || addresses.length === 0) {
          callback(refusedAddress(hostname, refused?.address ?? "nothing"), "", 4);
          return;
        }
        const wanted = addresses.filter(
          ({ family }) => !options.family || options.family === family,
        );
        if (options.all) callback(null, wanted as never);
        else callback(null, wanted[0]?.address ?? "", wanted[0]?.family ?? 4);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 4),
    );
  };
}

const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, "$1");

/** GETs the document; throws a ClientMetadataRefusal for every reason it is not used. */
export function fetchMetadataDocument(
  url: URL,
  policy: MetadataFetchPolicy,
): Promise<FetchedDocument> {
  const host = bareHost(url.hostname);
  // A literal address is never looked up, so it is vetted here.
  if (isIP(host) !== 0 && policy.addresses.refuses(host)) {
    return Promise.reject(refusedAddress(host, host));
  }
  return new Promise<FetchedDocument>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, document?: FetchedDocument) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(document as FetchedDocument);
    };
    const req = request(url, {
      method: "GET",
      // A fresh connection for each fetch: a pooled socket would skip the vetting lookup.
      agent: false,
      lookup: vettingLookup(policy),
      ca: policy.ca ? [...rootCertificates, ...policy.ca] : undefined,
      headers: { accept: "application/json", "accept-encoding": "identity" },
    });
    const timer = setTimeout(
      () =>
        finish(
          new ClientMetadataRefusal(
            "client_metadata_timeout",
            `no complete answer from ${url.host} within ${policy.timeoutMs} ms`,
          ),
        ),
      policy.timeoutMs,
    );
    req.on("error", (error) =>
      finish(
        error instanceof ClientMetadataRefusal
          ? error
          : new ClientMetadataRefusal(
              "client_metadata_unreachable",
              `could not fetch ${url.href}: ${error.message}`,
            ),
      ),
    );
    req.on("response", (res) => readBody(res, url, policy, finish));
    req.end();
  });
}

function readBody(
  res: IncomingMessage,
  url: URL,
  policy: MetadataFetchPolicy,
  finish: (error: Error | undefined, document?: FetchedDocument) => void,
): void {
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    finish(
      new ClientMetadataRefusal(
        "client_metadata_redirected",
        `${url.href} answered ${status}; redirects are not followed`,
      ),
    );
    return;
  }
  if (status !== 200) {
    finish(
      new ClientMetadataRefusal("client_metadata_unreachable", `${url.href} answered ${status}`),
    );
    return;
  }
  const tooLarge = () =>
    new ClientMetadataRefusal(
      "client_metadata_too_large",
      `${url.href} is larger than ${policy.maxBytes} bytes`,
    );
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > policy.maxBytes) {
    finish(tooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  res.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > policy.maxBytes) finish(tooLarge());
    else chunks.push(chunk);
  });
  res.on("error", (error) =>
    finish(new ClientMetadataRefusal("client_metadata_unreachable", error.message)),
  );
  res.on("end", () => {
    try {
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const cacheControl = res.headers["cache-control"];
      finish(undefined, { body, cacheControl });
    } catch {
      finish(
        new ClientMetadataRefusal("client_metadata_invalid", `${url.href} is not a JSON document`),
      );
    }
  });
}
