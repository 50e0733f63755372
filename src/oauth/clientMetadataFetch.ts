/**
 * Fetches a Client ID Metadata Document through the outbound fence (src/http/fencedFetch.ts):
 * https only, the host resolved once and vetted by the address policy, the socket pinned to the
 * vetted address, no redirects, a byte and a time limit. This file adds what is CIMD's own: the
 * shape of a client_id URL, the JSON body, and the refusal codes the problem page knows.
 */
import type { AddressPolicy } from "../http/addressPolicy.js";
import {
  type FenceReason,
  FenceRefusal,
  fencedFetch,
  type ResolvedAddress,
} from "../http/fencedFetch.js";
import { type ClientMetadataProblem, ClientMetadataRefusal } from "./clientMetadataRefusal.js";

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

const PROBLEM_OF: Record<FenceReason, ClientMetadataProblem> = {
  protocol: "client_metadata_url",
  address: "client_metadata_address",
  unreachable: "client_metadata_unreachable",
  status: "client_metadata_unreachable",
  aborted: "client_metadata_unreachable",
  busy: "client_metadata_unreachable",
  redirected: "client_metadata_redirected",
  timeout: "client_metadata_timeout",
  too_large: "client_metadata_too_large",
};

/** GETs the document; throws a ClientMetadataRefusal for every reason it is not used. */
export async function fetchMetadataDocument(
  url: URL,
  policy: MetadataFetchPolicy,
): Promise<FetchedDocument> {
  let response: Awaited<ReturnType<typeof fencedFetch>>;
  try {
    response = await fencedFetch(url, { ...policy, accept: "application/json" });
  } catch (error) {
    if (error instanceof FenceRefusal) {
      throw new ClientMetadataRefusal(PROBLEM_OF[error.reason], error.message);
    }
    throw error;
  }
  try {
    const body: unknown = JSON.parse(response.bytes.toString("utf8"));
    return { body, cacheControl: response.cacheControl };
  } catch {
    throw new ClientMetadataRefusal(
      "client_metadata_invalid",
      `${url.href} is not a JSON document`,
    );
  }
}
