/**
 * Idempotency keys: a request (a REST `POST` with `Idempotency-Key`, a tool call with
 * `_meta.idempotencyKey`, a chat tool call) runs once per caller and key; a retry with the same
 * key and the same request replays the first answer; with another request it is 422; while the
 * first still runs it is 409. One rule for every surface; src/rest/idempotent.ts and the
 * tool-call runner (src/tools/runToolCall.ts) only adapt it.
 *
 * The claim is a unique insert in `terreno_claims` (ClaimStore, claimCounter.ts: THE primitive
 * that holds on FerretDB and MongoDB alike): group `idempotency|<scope>|<user id>|<key>` (one
 * claim per group, so reading it reads one document), series `request`, slot 1. Of two instances racing with one key, exactly one inserts; the other reads the
 * claim and answers 409 (still running) or replays it (done). A running claim expires after
 * RUNNING_LEASE_MS (a process that died mid-request frees its key); a kept answer after
 * KEEP_ANSWER_MS (24 hours). Expired claims are ignored when read and swept by the app (at most
 * once a minute per process), since FerretDB has no TTL indexes.
 */
import { createHash, randomUUID } from "node:crypto";
import canonicalize from "canonicalize";
import type { Connection } from "mongoose";
import { defineErrorCode, TerrenoError, validationFailed } from "../core/errors.js";
import type { IdempotencyGuard, IdempotencyStart, IdempotentRequest } from "../core/types.js";
import { ClaimStore } from "./claimCounter.js";

/** How long an answer is kept and replayed. */
const KEEP_ANSWER_MS = 24 * 60 * 60 * 1000;
/** How long a request may run before its key is free again (its process is presumed dead). */
const RUNNING_LEASE_MS = 10 * 60 * 1000;
const MAX_KEY_LENGTH = 255;
/** Claims tried before giving up: each failure is a claim that expired and was taken again. */
const ATTEMPTS = 3;

/** 409: the key's first request is still running. */
export const IDEMPOTENCY_KEY_IN_USE = defineErrorCode("idempotency_key_in_use", {
  status: 409,
  title: "Conflict",
});
/** 422: the key was used for another request (another route, body, tool or arguments). */
export const IDEMPOTENCY_KEY_REUSED = defineErrorCode("idempotency_key_reused", {
  status: 422,
  title: "Unprocessable Content",
});

/**
 * A key as a client sent it: 1 to 255 visible ASCII characters, bare or as a structured-field
 * string (`"…"`, as the IETF draft writes it). `field` names it in the 400.
 */
export function parseIdempotencyKey(raw: unknown, field: string): string {
  const text = typeof raw === "string" ? raw.trim() : undefined;
  const key =
    text && text.length >= 2 && text.startsWith('"') && text.endsWith('"')
      ? text.slice(1, -1)
      : text;
  if (!key || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e][\x20-\x7e]*$/.test(key)) {
    throw validationFailed("Invalid idempotency key.", {
      [field]: `must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters`,
    });
  }
  return key;
}

/** SHA-256 of the request's canonical JSON (RFC 8785): key order never matters. */
export function fingerprintOf(request: unknown): string {
  return createHash("sha256")
    .update(canonicalize(request ?? null) ?? "null")
    .digest("hex");
}

/** What a claim holds: the request's fingerprint, its claimer, and once done the answer. */
interface KeyData {
  owner: string;
  fingerprint: string;
  /** The answer as JSON (a string: stored keys stay free of `.` and `$`); absent while running. */
  answer?: string;
}

const SERIES = "request";
const SLOT = 1;

/** One group per caller and key; `|` only ever separates the parts. */
function groupOf(request: IdempotentRequest): string {
  const part = (value: string) => value.replaceAll("%", "%25").replaceAll("|", "%7C");
  return ["idempotency", request.scope, part(request.caller), part(request.key)].join("|");
}

/** The idempotency keys stored on `connection()`'s database (the app's). */
export function idempotencyKeys(connection: () => Connection): IdempotencyGuard {
  async function begin(request: IdempotentRequest): Promise<IdempotencyStart> {
    const store = ClaimStore.on(connection());
    await store.sweepExpired();
    const group = groupOf(request);
    const owner = randomUUID();
    const running: KeyData = { owner, fingerprint: request.fingerprint };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const lease = new Date(Date.now() + RUNNING_LEASE_MS);
      if (await store.claimAt(group, SERIES, SLOT, lease, { ...running })) {
        return {
          state: "run",
          finish: (answer) =>
            store.settle(group, SERIES, SLOT, owner, keptUntil(), {
              ...running,
              answer: JSON.stringify(answer ?? null),
            }),
          release: () => store.release(group, SERIES, SLOT, owner),
        };
      }
      // Taken: read the claim (expired ones are deleted by the read, so the next try can win).
      const claim = (await store.claims(group)).find((c) => c.series === SERIES);
      if (!claim) continue;
      const data = claim.data as Partial<KeyData>;
      if (data.fingerprint !== request.fingerprint) {
        throw new TerrenoError(
          IDEMPOTENCY_KEY_REUSED,
          "This idempotency key was used for another request; send a new key for a new request.",
        );
      }
      if (typeof data.answer !== "string") {
        throw new TerrenoError(
          IDEMPOTENCY_KEY_IN_USE,
          "A request with this idempotency key is still running; retry once it has answered.",
        );
      }
      return { state: "replay", answer: JSON.parse(data.answer) as unknown };
    }
    throw new TerrenoError(
      IDEMPOTENCY_KEY_IN_USE,
      "This idempotency key is being claimed by another request; retry shortly.",
    );
  }
  return { begin };
}

const keptUntil = () => new Date(Date.now() + KEEP_ANSWER_MS);
