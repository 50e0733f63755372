/**
 * Client ID Metadata Documents (the MCP 2025-11-25 authorization spec; draft-ietf-oauth-client-
 * id-metadata-document): a `client_id` that is an https URL names a JSON document describing the
 * client. This plugin is the provider's client discovery for such ids (`extendOAuthProvider`):
 * it fetches the document (clientMetadataFetch.ts), checks it (clientMetadataDocument.ts) and
 * stores it as a client through the provider's own persistence seam. How long the stored copy
 * is used follows the response's Cache-Control, within a floor and a ceiling; that freshness
 * lives in MongoDB beside the client (the provider's verification collection), so every
 * instance shares it. The outbound work a client_id can cause is bounded: a failed fetch is
 * remembered there too for a short time (the same bad URL is not fetched again), each client
 * address has a budget of fetches (clientMetadataBudget.ts), and the fetches in flight in this
 * process are capped (`fetch.slots`).
 */
import {
  type ClientDiscovery,
  extendOAuthProvider,
  type OAuthOptions,
  type SchemaClient,
  type Scope,
} from "@better-auth/oauth-provider";
import { registerClientMetadataDocument } from "@better-auth/oauth-provider/internal";
import type { BetterAuthPlugin } from "better-auth";
import { APIError } from "better-auth/api";
import { spendFetch } from "./clientMetadataBudget.js";
import {
  clientMetadataFrom,
  freshnessSeconds,
  listsRedirectUri,
} from "./clientMetadataDocument.js";
import {
  fetchMetadataDocument,
  type MetadataFetchPolicy,
  metadataDocumentUrl,
} from "./clientMetadataFetch.js";
import { type ClientMetadataProblem, ClientMetadataRefusal } from "./clientMetadataRefusal.js";
import { CIMD_DISCOVERY_ID } from "./clientTrust.js";

export interface ClientMetadataSettings {
  fetch: MetadataFetchPolicy;
  /** Seconds a document is reused when its response says nothing about caching. */
  defaultCacheSeconds: number;
  /** The most seconds any document is reused, whatever its response says. */
  maxCacheSeconds: number;
  /** The fewest seconds a document is reused, even when its response says `no-store`. */
  minCacheSeconds: number;
  /** Seconds a refused document (a failed fetch, an invalid document) is not fetched again. */
  failureCacheSeconds: number;
}

/** The body field the authorization endpoint's error hook reads the refusal's code from. */
export const CLIENT_METADATA_ERROR_FIELD = "client_metadata_error";

type Context = Parameters<ClientDiscovery["resolve"]>[0];

const freshnessKey = (clientId: string) => `terreno-cimd:${clientId}`;
const failureKey = (clientId: string) => `terreno-cimd-failed:${clientId}`;

interface RememberedRecord {
  id: string;
  value: string;
  expiresAt: Date;
}

/** The value remembered under `identifier`, while it has not expired. */
async function recall(ctx: Context, identifier: string): Promise<string | undefined> {
  const record = await ctx.context.adapter.findOne<RememberedRecord>({
    model: "verification",
    where: [{ field: "identifier", value: identifier }],
  });
  const live = record !== null && new Date(record.expiresAt).getTime() > Date.now();
  return live ? record.value : undefined;
}

/** Remembers `value` under `identifier` for `seconds` (0: forgets it). */
async function remember(
  ctx: Context,
  identifier: string,
  value: string,
  seconds: number,
): Promise<void> {
  await ctx.context.adapter.deleteMany({
    model: "verification",
    where: [{ field: "identifier", value: identifier }],
  });
  if (seconds <= 0) return;
  await ctx.context.adapter.create({
    model: "verification",
    data: {
      identifier,
      value,
      expiresAt: new Date(Date.now() + seconds * 1000),
      createdAt: new Date(),
      updatedAt: new Date(),
    },
  });
}

/** A failure remembered for `clientId`, as the refusal it was. */
async function rememberedFailure(
  ctx: Context,
  clientId: string,
): Promise<ClientMetadataRefusal | undefined> {
  const value = await recall(ctx, failureKey(clientId));
  if (value === undefined) return undefined;
  let remembered: { code?: ClientMetadataProblem; message?: string };
  try {
    remembered = JSON.parse(value) as typeof remembered;
  } catch {
    return undefined;
  }
  return new ClientMetadataRefusal(
    remembered.code ?? "client_metadata_unreachable",
    remembered.message ?? "the document could not be fetched as a JSON document",
    { detail: "a failure remembered, not fetched" },
  );
}

/** At the authorization endpoint, the redirect URI asked for must be one the document lists. */
function requestedRedirectUri(ctx: Context): string | undefined {
  if (ctx.path !== "/oauth2/authorize") return undefined;
  const value = (ctx.query as Record<string, unknown> | undefined)?.redirect_uri;
  return typeof value === "string" ? value : undefined;
}

function asApiError(refusal: ClientMetadataRefusal): APIError {
  const seconds = refusal.extra.retryAfterSeconds;
  if (seconds !== undefined) {
    return new APIError(
      "TOO_MANY_REQUESTS",
      {
        error: "temporarily_unavailable",
        error_description: `Client ID Metadata Document not fetched: ${refusal.message}`,
        [CLIENT_METADATA_ERROR_FIELD]: refusal.code,
      },
      { "Retry-After": String(seconds) },
    );
  }
  return new APIError("BAD_REQUEST", {
    error: "invalid_client",
    error_description: `Client ID Metadata Document refused: ${refusal.message}`,
    [CLIENT_METADATA_ERROR_FIELD]: refusal.code,
  });
}

/** Fetches and checks the document; a refusal of the document itself is remembered. */
async function fetchChecked(ctx: Context, settings: ClientMetadataSettings, clientId: string) {
  const url = metadataDocumentUrl(clientId);
  const remembered = await rememberedFailure(ctx, clientId);
  if (remembered) throw remembered;
  await spendFetch();
  try {
    const fetched = await fetchMetadataDocument(url, settings.fetch);
    return { fetched, metadata: clientMetadataFrom(fetched.body, clientId) };
  } catch (error) {
    if (error instanceof ClientMetadataRefusal && !error.extra.transient) {
      const value = JSON.stringify({ code: error.code, message: error.message });
      await remember(ctx, failureKey(clientId), value, settings.failureCacheSeconds);
    }
    throw error;
  }
}

async function resolveDocument(
  ctx: Context,
  settings: ClientMetadataSettings,
  clientId: string,
  existing: SchemaClient<Scope[]> | null,
): Promise<SchemaClient<Scope[]>> {
  if (existing && (await recall(ctx, freshnessKey(clientId))) !== undefined) return existing;
  const { fetched, metadata } = await fetchChecked(ctx, settings, clientId);
  const redirectUri = requestedRedirectUri(ctx);
  if (redirectUri !== undefined && !listsRedirectUri(metadata, redirectUri)) {
    throw new ClientMetadataRefusal(
      "client_metadata_redirect_uri",
      `redirect_uri ${redirectUri} is not among the document's redirect_uris`,
    );
  }
  const provider = ctx.context.getPlugin("oauth-provider") as { options: OAuthOptions<Scope[]> };
  const { client } = await registerClientMetadataDocument(ctx, provider.options, {
    metadata,
    clientId,
    clientDiscoveryId: CIMD_DISCOVERY_ID,
    existingClient: existing ?? undefined,
  });
  // A floor even for `no-store`: otherwise every request naming the URL fetches it again.
  const seconds = Math.max(
    settings.minCacheSeconds,
    freshnessSeconds(fetched.cacheControl, settings.defaultCacheSeconds, settings.maxCacheSeconds),
  );
  await remember(ctx, freshnessKey(clientId), "fresh", seconds);
  return client;
}

/** The discovery: every http(s) client_id is ours, so an http one gets a clear refusal. */
function discovery(settings: ClientMetadataSettings): ClientDiscovery {
  return {
    id: CIMD_DISCOVERY_ID,
    matches: (clientId) => /^https?:\/\//i.test(clientId),
    resolve: async (ctx, clientId, existing) => {
      try {
        return await resolveDocument(ctx, settings, clientId, existing);
      } catch (error) {
        if (!(error instanceof ClientMetadataRefusal)) throw error;
        ctx.context.logger.warn(`Client ID Metadata Document ${clientId}: ${error.logLine}`);
        throw asApiError(error);
      }
    },
    discoveryMetadata: { client_id_metadata_document_supported: true },
  };
}

export function clientMetadataDocuments(settings: ClientMetadataSettings) {
  const extension = { clientDiscovery: discovery(settings) };
  return {
    id: "terreno-cimd",
    init(ctx) {
      extendOAuthProvider(ctx, extension);
    },
  } satisfies BetterAuthPlugin;
}
