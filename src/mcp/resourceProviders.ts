/**
 * MCP resources from any number of providers, built once and served by every per-request
 * server: records (recordResources.ts) and any other scheme (MCP Apps' `ui://` views). Each
 * provider answers for the URIs it owns; `resources/list` pages through the providers in
 * order; `completion/complete` asks the provider that owns the template.
 */
import {
  type CompleteResult,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  ResourceNotFoundError,
  type ResourceTemplateType,
  type Server,
} from "@modelcontextprotocol/server";
import type { McpCaller } from "./caller.js";
import type { McpRequestState } from "./requestState.js";
import { protocolError } from "./toolResult.js";

type MaybePromise<T> = T | Promise<T>;

interface ResourcePage {
  resources: Resource[];
  /** This provider's own cursor for its next page; absent on its last page. */
  nextCursor?: string;
}

export type Completion = CompleteResult["completion"];

export interface McpResourceProvider {
  /** Whether `uri` is this provider's (its scheme, say). The first provider that owns it reads it. */
  owns(uri: string): boolean;
  /**
   * The resource for this caller. What the caller may not read answers exactly as what does
   * not exist: throw `resourceNotFound(uri)`.
   */
  read(uri: string, caller: McpCaller): Promise<ReadResourceResult>;
  /** One page of what this caller may list; `cursor` is one this provider returned. */
  list?(caller: McpCaller, cursor: string | undefined): Promise<ResourcePage>;
  /** The templates this caller sees. */
  templates?(caller: McpCaller): MaybePromise<readonly ResourceTemplateType[]>;
  /** Values for an argument of one of this provider's templates; undefined: not its template. */
  complete?(
    templateUri: string,
    argument: { name: string; value: string },
    caller: McpCaller,
  ): Promise<Completion | undefined>;
}

/** The one answer for a URI that is missing, unknown, or not the caller's to read. */
export function resourceNotFound(uri: string): ProtocolError {
  return new ResourceNotFoundError(uri, `Resource not found: ${uri}`);
}

function invalidCursor(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid cursor");
}

/** `{p: provider index, c: its cursor}` as base64url: opaque to clients, checked on the way in. */
function encodeCursor(provider: number, inner: string | undefined): string {
  return Buffer.from(JSON.stringify({ p: provider, c: inner ?? null })).toString("base64url");
}

function decodeCursor(cursor: string, providers: number): { p: number; c: string | undefined } {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    const { p, c } = parsed as { p?: unknown; c?: unknown };
    if (Number.isInteger(p) && (p as number) >= 0 && (p as number) < providers) {
      if (c === null || typeof c === "string") return { p: p as number, c: c ?? undefined };
    }
  } catch {
    // Not ours: refused below.
  }
  throw invalidCursor();
}

export const EMPTY_COMPLETION: Completion = { values: [], total: 0, hasMore: false };

/** What the server declares for these providers (nothing when there are none). */
export function resourceCapabilities(providers: readonly McpResourceProvider[]) {
  if (providers.length === 0) return {};
  return {
    resources: { listChanged: false, subscribe: false },
    ...(providers.some((provider) => provider.complete) ? { completions: {} } : {}),
  };
}

/**
 * A handler for the request's caller: a caller that could not be resolved fails it; a rate
 * limit it throws is answered with 429 (`McpRequestState.noteThrown`); `fail` maps an
 * unexpected error (and reports it).
 */
export function guardFor(
  state: McpRequestState,
  fail: (error: unknown, operation: string) => Error,
) {
  const { caller } = state;
  return <A extends unknown[], R>(operation: string, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (caller.failure) throw protocolError(caller.failure);
      try {
        return await run(...args);
      } catch (error) {
        state.noteThrown(error);
        throw error instanceof ProtocolError ? error : fail(error, operation);
      }
    };
}

/** `completion/complete` of a resource template's argument: the first provider that owns it. */
export async function completeResource(
  providers: readonly McpResourceProvider[],
  uri: string,
  argument: { name: string; value: string },
  caller: McpCaller,
): Promise<Completion> {
  for (const provider of providers) {
    const completion = await provider.complete?.(uri, argument, caller);
    if (completion) return completion;
  }
  return EMPTY_COMPLETION;
}

/**
 * Registers the resource handlers on one per-request server, for the request's caller
 * (`guardFor`). `completion/complete` is registered by the server factory, which also
 * completes prompts' arguments.
 */
export function serveResources(
  server: Server,
  providers: readonly McpResourceProvider[],
  state: McpRequestState,
  fail: (error: unknown, operation: string) => Error,
): void {
  if (providers.length === 0) return;
  const { caller } = state;
  const guarded = guardFor(state, fail);
  const listers = providers.filter((provider) => provider.list);

  server.setRequestHandler(
    "resources/read",
    guarded("resources/read", async (request) => {
      const { uri } = request.params;
      const owner = providers.find((provider) => provider.owns(uri));
      if (!owner) throw resourceNotFound(uri);
      return owner.read(uri, caller);
    }),
  );

  server.setRequestHandler(
    "resources/list",
    guarded("resources/list", async (request) => {
      if (listers.length === 0) return { resources: [] };
      const cursor = request.params?.cursor;
      let { p, c } = cursor ? decodeCursor(cursor, listers.length) : { p: 0, c: undefined };
      // Skips providers with nothing for this caller, so a page is empty only at the end.
      for (;;) {
        const page = await (listers[p].list as NonNullable<McpResourceProvider["list"]>)(caller, c);
        const next =
          page.nextCursor !== undefined
            ? encodeCursor(p, page.nextCursor)
            : p + 1 < listers.length
              ? encodeCursor(p + 1, undefined)
              : undefined;
        if (page.resources.length > 0 || next === undefined) {
          return { resources: page.resources, ...(next ? { nextCursor: next } : {}) };
        }
        ({ p, c } = decodeCursor(next, listers.length));
      }
    }),
  );

  server.setRequestHandler(
    "resources/templates/list",
    guarded("resources/templates/list", async () => {
      const lists = await Promise.all(providers.map((provider) => provider.templates?.(caller)));
      return { resourceTemplates: lists.flatMap((list) => list ?? []) };
    }),
  );
}
