/**
 * The per-address budget of Client ID Metadata Document fetches: a URL client_id costs this
 * server an outbound request, so each client address may cause only so many per window
 * (`clientMetadataDocuments.fetchesPerIp`). Points are spent only when a document is actually
 * fetched (a fresh stored client, or a remembered failure, costs nothing), on every endpoint
 * that looks a client up (authorize, token, revoke, introspect, consent). The counters live in
 * the app's rate-limit store (MongoDB with `rateLimit.store: "mongo"`), shared by instances.
 *
 * The client lookup runs deep inside the OAuth library, which never sees Express's request, so
 * the caller's address travels in an AsyncLocalStorage set by `clientMetadataBudget()`, mounted
 * in front of the library. A lookup outside any request (the app's own `auth.api` calls) is not
 * counted; the process-wide cap on fetches in flight still applies to it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { TerrenoError } from "../core/errors.js";
import { clientIp, type RateLimit } from "../ops/rateLimit.js";
import { ClientMetadataRefusal } from "./clientMetadataRefusal.js";

interface Budget {
  limit: RateLimit;
  key: string;
}

const budgets = new AsyncLocalStorage<Budget>();

/** Middleware: the requests after it spend `limit` per client address when they fetch. */
export function clientMetadataBudget(limit: RateLimit): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    budgets.run({ limit, key: `ip:${clientIp(req)}` }, next);
  };
}

/**
 * Spends one fetch of the current request's address; throws a `client_metadata_rate_limited`
 * refusal (with the seconds to wait) when its budget is spent.
 */
export async function spendFetch(): Promise<void> {
  const budget = budgets.getStore();
  if (!budget) return;
  try {
    await budget.limit.consume(budget.key);
  } catch (error) {
    if (!(error instanceof TerrenoError) || error.code !== "rate_limited") throw error;
    const seconds = Number(error.headers?.["Retry-After"]) || budget.limit.duration;
    throw new ClientMetadataRefusal(
      "client_metadata_rate_limited",
      `too many client metadata documents fetched for this address; retry in ${seconds} s`,
      { detail: `${budget.key} spent ${budget.limit.points} fetches`, retryAfterSeconds: seconds },
    );
  }
}
