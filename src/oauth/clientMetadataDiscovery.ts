/**
 * Client ID Metadata Documents (the MCP 2025-11-25 authorization spec; draft-ietf-oauth-client-
 * id-metadata-document): a `client_id` that is an https URL names a JSON document describing the
 * client. This plugin is the provider's client discovery for such ids (`extendOAuthProvider`):
 * it fetches the document (clientMetadataFetch.ts), checks it (clientMetadataDocument.ts) and
 * stores it as a client through the provider's own persistence seam. How long the stored copy
 * is used follows the response's Cache-Control; that freshness lives in MongoDB beside the
 * client (the provider's verification collection), so every instance shares it.
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
import { ClientMetadataRefusal } from "./clientMetadataRefusal.js";
import { CIMD_DISCOVERY_ID } from "./clientTrust.js";

export interface ClientMetadataSettings {
  fetch: MetadataFetchPolicy;
  /** Seconds a document is reused when its response says nothing about caching. */
  defaultCacheSeconds: number;
  /** The most seconds any document is reused, whatever its response says. */
  maxCacheSeconds: number;
}

/** The body field the authorization endpoint's error hook reads the refusal's code from. */
export const CLIENT_METADATA_ERROR_FIELD = "client_metadata_error";

type Context = Parameters<ClientDiscovery["resolve"]>[0];

const freshnessKey = (clientId: string) => `terreno-cimd:${clientId}`;

interface FreshnessRecord {
  id: string;
  expiresAt: Date;
}

async function isFresh(ctx: Context, clientId: string): Promise<boolean> {
  const record = await ctx.context.adapter.findOne<FreshnessRecord>({
    model: "verification",
    where: [{ field: "identifier", value: freshnessKey(clientId) }],
  });
  return record !== null && new Date(record.expiresAt).getTime() > Date.now();
}

async function rememberFreshness(ctx: Context, clientId: string, seconds: number): Promise<void> {
  const identifier = freshnessKey(clientId);
  await ctx.context.adapter.deleteMany({
    model: "verification",
    where: [{ field: "identifier", value: identifier }],
  });
  if (seconds <= 0) return;
  await ctx.context.adapter.create({
    model: "verification",
    data: {
      identifier,
      value: "fresh",
      expiresAt: new Date(Date.now() + seconds * 1000),
      createdAt: new Date(),
      updatedAt: new Date(),
    },
  });
}

/** At the authorization endpoint, the redirect URI asked for must be one the document lists. */
function requestedRedirectUri(ctx: Context): string | undefined {
  if (ctx.path !== "/oauth2/authorize") return undefined;
  const value = (ctx.query as Record<string, unknown> | undefined)?.redirect_uri;
  return typeof value === "string" ? value : undefined;
}

function asApiError(refusal: ClientMetadataRefusal): APIError {
  return new APIError("BAD_REQUEST", {
    error: "invalid_client",
    error_description: `Client ID Metadata Document refused: ${refusal.message}`,
    [CLIENT_METADATA_ERROR_FIELD]: refusal.code,
  });
}

async function resolveDocument(
  ctx: Context,
  settings: ClientMetadataSettings,
  clientId: string,
  existing: SchemaClient<Scope[]> | null,
): Promise<SchemaClient<Scope[]>> {
  if (existing && (await isFresh(ctx, clientId))) return existing;
  const url = metadataDocumentUrl(clientId);
  const fetched = await fetchMetadataDocument(url, settings.fetch);
  const metadata = clientMetadataFrom(fetched.body, clientId);
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
  const seconds = freshnessSeconds(
    fetched.cacheControl,
    settings.defaultCacheSeconds,
    settings.maxCacheSeconds,
  );
  await rememberFreshness(ctx, clientId, seconds);
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
        ctx.context.logger.warn(`Client ID Metadata Document ${clientId}: ${error.message}`);
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
