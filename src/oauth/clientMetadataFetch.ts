/**
 * Fetches a Client ID Metadata Document through the outbound fence (src/http/fencedFetch.ts):
 * https only, the host resolved once and vetted by the address policy, the socket pinned to the
 * vetted address, no redirects, a byte and a time limit. This file adds what is CIMD's own: the
 * shape of a client_id URL, the JSON body, and the refusal codes the problem page knows.
 */
import type { AddressPolicy } from "../http/addressPolicy.js";
import {
  FenceRefusal,
  type FetchSlots,
  fencedFetch,
  type ResolvedAddress,
} from "../http/fencedFetch.js";
import { ClientMetadataRefusal } from "./clientMetadataRefusal.js";

export interface MetadataFetchPolicy {
  addresses: AddressPolicy;
  /** Certificates trusted beside the system's roots (PEM). */
  ca?: string[];
  maxBytes: number;
  timeoutMs: number;
  /** Host name resolution; default the system resolver (dns.lookup, every address). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** The cap on fetches in flight in this process; over it a fetch is refused at once. */
  slots?: FetchSlots;
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

/** The one refusal of every fetch failure; the detail only goes to the log. */
const unfetchable = (detail: string, transient = false) =>
  new ClientMetadataRefusal(
    "client_metadata_unreachable",
    "the document could not be fetched as a JSON document",
    { detail, transient },
  );

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
      throw unfetchable(`${error.reason}: ${error.message}`, error.reason === "busy");
    }
    throw error;
  }
  try {
    const body: unknown = JSON.parse(response.bytes.toString("utf8"));
    return { body, cacheControl: response.cacheControl };
  } catch {
    throw unfetchable(`${url.href}: the body is not JSON`);
  }
}
