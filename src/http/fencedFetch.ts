/**
 * One outbound GET whose URL came from outside (a Client ID Metadata Document, a chat's remote
 * file), fenced so the URL cannot steer this server (SSRF): only the protocols the policy names;
 * the host is resolved once, every address it resolves to must pass the address policy, and the
 * socket's own lookup is that vetting one, so DNS rebinding cannot switch it; a fresh connection
 * per fetch (a pooled socket would skip the lookup); no redirects; a byte and a time limit.
 */
import { lookup as dnsLookup } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { rootCertificates } from "node:tls";
import type { AddressPolicy } from "./addressPolicy.js";

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface FencePolicy {
  addresses: AddressPolicy;
  /** The URL schemes allowed; default `["https:"]`. */
  protocols?: ReadonlyArray<"https:" | "http:">;
  /** Certificates trusted beside the system's roots (PEM). */
  ca?: string[];
  maxBytes: number;
  timeoutMs: number;
  /** The request's Accept header; default `*\/*`. */
  accept?: string;
  /** Host name resolution; default the system resolver (dns.lookup, every address). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Aborts the fetch (it then rejects with a `FenceRefusal` of reason "aborted"). */
  signal?: AbortSignal;
  /**
   * Caps the fetches in flight at once (share one `fetchSlots(n)` among the fetches it bounds);
   * when all are taken the fetch is refused at once ("busy"), never queued behind slow hosts.
   */
  slots?: FetchSlots;
}

/** A count of outbound fetches allowed in flight at once, in this process. */
export interface FetchSlots {
  /** Takes a slot; false when none is free. */
  take(): boolean;
  release(): void;
}

export function fetchSlots(max: number): FetchSlots {
  let inFlight = 0;
  return {
    take() {
      if (inFlight >= max) return false;
      inFlight++;
      return true;
    },
    release() {
      inFlight = Math.max(0, inFlight - 1);
    },
  };
}

export interface FencedResponse {
  /** The whole body, at most `maxBytes`. */
  bytes: Buffer;
  /** The Content-Type header, if any. */
  contentType?: string;
  /** The Cache-Control header, if any. */
  cacheControl?: string;
}

/** Why a fenced fetch gave nothing; the message has the detail (for logs, not for callers' clients). */
export type FenceReason =
  | "protocol"
  | "address"
  | "unreachable"
  | "status"
  | "redirected"
  | "timeout"
  | "too_large"
  | "aborted"
  | "busy";

export class FenceRefusal extends Error {
  constructor(
    readonly reason: FenceReason,
    message: string,
  ) {
    super(message);
    this.name = "FenceRefusal";
  }
}

const systemResolve = (hostname: string) =>
  new Promise<ResolvedAddress[]>((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

const refusedAddress = (hostname: string, address: string) =>
  new FenceRefusal(
    "address",
    `${hostname === address ? address : `${hostname} resolves to ${address}, which`} is a private, loopback or other special-use address`,
  );

/** The socket's lookup: resolves, refuses the host if any address is refused, else answers. */
function vettingLookup(policy: FencePolicy): LookupFunction {
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

/** GETs `url` inside the fence; rejects with a `FenceRefusal` for every reason it gives nothing. */
export async function fencedFetch(url: URL | string, policy: FencePolicy): Promise<FencedResponse> {
  const { slots } = policy;
  if (!slots) return fenced(url, policy);
  if (!slots.take()) {
    throw new FenceRefusal(
      "busy",
      `too many outbound fetches in flight; ${String(url)} not fetched`,
    );
  }
  try {
    return await fenced(url, policy);
  } finally {
    slots.release();
  }
}

function fenced(url: URL | string, policy: FencePolicy): Promise<FencedResponse> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new FenceRefusal("protocol", `${String(url)} is not a URL`));
  }
  const protocols = policy.protocols ?? ["https:"];
  if (!(protocols as readonly string[]).includes(target.protocol)) {
    return Promise.reject(
      new FenceRefusal(
        "protocol",
        `${target.protocol} URLs are not fetched (${protocols.join(" ")})`,
      ),
    );
  }
  if (target.username || target.password) {
    return Promise.reject(new FenceRefusal("protocol", "URLs with credentials are not fetched"));
  }
  const host = bareHost(target.hostname);
  // A literal address is never looked up, so it is vetted here.
  if (isIP(host) !== 0 && policy.addresses.refuses(host)) {
    return Promise.reject(refusedAddress(host, host));
  }
  if (policy.signal?.aborted) {
    return Promise.reject(new FenceRefusal("aborted", `fetching ${target.href} was aborted`));
  }
  return new Promise<FencedResponse>((resolve, reject) => {
    let settled = false;
    const onAbort = () =>
      finish(new FenceRefusal("aborted", `fetching ${target.href} was aborted`));
    const finish = (error: Error | undefined, response?: FencedResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      policy.signal?.removeEventListener("abort", onAbort);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(response as FencedResponse);
    };
    const request = target.protocol === "http:" ? httpRequest : httpsRequest;
    const req = request(target, {
      method: "GET",
      // A fresh connection for each fetch: a pooled socket would skip the vetting lookup.
      agent: false,
      lookup: vettingLookup(policy),
      ...(target.protocol === "https:" && policy.ca
        ? { ca: [...rootCertificates, ...policy.ca] }
        : {}),
      headers: { accept: policy.accept ?? "*/*", "accept-encoding": "identity" },
    });
    const timer = setTimeout(
      () =>
        finish(
          new FenceRefusal(
            "timeout",
            `no complete answer from ${target.host} within ${policy.timeoutMs} ms`,
          ),
        ),
      policy.timeoutMs,
    );
    policy.signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (error) =>
      finish(
        error instanceof FenceRefusal
          ? error
          : new FenceRefusal("unreachable", `could not fetch ${target.href}: ${error.message}`),
      ),
    );
    req.on("response", (res) => readBody(res, target, policy, finish));
    req.end();
  });
}

function readBody(
  res: IncomingMessage,
  url: URL,
  policy: FencePolicy,
  finish: (error: Error | undefined, response?: FencedResponse) => void,
): void {
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    finish(
      new FenceRefusal("redirected", `${url.href} answered ${status}; redirects are not followed`),
    );
    return;
  }
  if (status !== 200) {
    finish(new FenceRefusal("status", `${url.href} answered ${status}`));
    return;
  }
  const tooLarge = () =>
    new FenceRefusal("too_large", `${url.href} is larger than ${policy.maxBytes} bytes`);
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
  res.on("error", (error) => finish(new FenceRefusal("unreachable", error.message)));
  res.on("end", () =>
    finish(undefined, {
      bytes: Buffer.concat(chunks),
      contentType: res.headers["content-type"],
      cacheControl: res.headers["cache-control"],
    }),
  );
}
