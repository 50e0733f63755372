/**
 * 2026-07-28 confirmations bound to their question. The question travels with a signed
 * `requestState` (the SDK's `createRequestStateCodec`, HMAC-SHA256): it names the tool and the
 * hash of the arguments' canonical JSON (RFC 8785), is bound to the caller, and expires with
 * the question (10 minutes). A retry's accepted answer counts only with such a state for the
 * very same tool, arguments and caller, once; a confirmation for todo A cannot delete todo B,
 * a first call cannot carry its own "yes", a replayed answer runs nothing again, and another
 * caller's or an expired state is no state. The key is derived from the app's JWT secret (else kept in the app's database), so
 * every instance honours what any of them issued.
 *
 * The state is checked in the `tools/call` handler, not through the SDK's
 * `requestState.verify` hook: the hook refuses a bad state with a bare `-32602`, where here a
 * state that does not fit this call simply asks the person again, with a fresh one.
 */
import { createHash, hkdfSync, randomBytes } from "node:crypto";
import {
  createRequestStateCodec,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";
import canonicalize from "canonicalize";
import type { Connection } from "mongoose";
import { TerrenoError } from "../core/errors.js";
import { callerKey } from "../ops/rateLimit.js";
import { QUESTION_TIMEOUT_MS } from "./confirm.js";
import { mcpRequestState } from "./requestState.js";

/** What a question's state says it asked about. */
interface AskedAbout {
  tool: string;
  /** SHA-256 of the arguments' canonical JSON. */
  args: string;
  /** Makes every question's state its own, so redeeming one never spends another. */
  nonce: string;
}

export interface ConfirmationStates {
  /** The state to send with the question about this call. */
  mint(tool: string, args: unknown, ctx: ServerContext): Promise<string>;
  /**
   * Whether `state` (what the retry echoed) was issued for this tool, these arguments and this
   * caller, is unexpired, and was not redeemed before; it is then redeemed, so one question's
   * answer runs one call. Anything else, a forgery included, is false; a throw only means the
   * database could not record the redemption.
   */
  redeem(state: unknown, tool: string, args: unknown, ctx: ServerContext): Promise<boolean>;
}

function argsHash(args: unknown): string {
  return createHash("sha256")
    .update(canonicalize(args ?? {}) ?? "{}")
    .digest("hex");
}

/** The caller a request's state is bound to: its user, else its address. */
function boundTo(ctx: ServerContext): string {
  const caller = mcpRequestState(ctx.http?.req)?.caller;
  return `tools/call\0${callerKey(caller?.user, caller?.ip)}`;
}

/** The states already redeemed, until they expire (no TTL index: FerretDB has none). */
const REDEEMED = "mcp_confirmation_states";

/** Records `state` as redeemed: false when it was already (a unique insert, atomic everywhere). */
async function firstRedemption(connection: Connection, state: string): Promise<boolean> {
  try {
    const redeemed = connection.db?.collection<{ _id: string; expiresAt: Date }>(REDEEMED);
    if (!redeemed) throw new Error("The database is not connected.");
    const now = Date.now();
    await redeemed.deleteMany({ expiresAt: { $lt: new Date(now) } });
    const _id = createHash("sha256").update(state).digest("hex");
    await redeemed.insertOne({ _id, expiresAt: new Date(now + QUESTION_TIMEOUT_MS) });
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === 11000) return false;
    throw unavailable(error);
  }
}

function unavailable(cause: unknown): TerrenoError {
  return new TerrenoError(
    "database_unavailable",
    "The confirmation could not be checked: the database is unavailable.",
    undefined,
    { cause },
  );
}

export function confirmationStates(
  key: () => Promise<Uint8Array>,
  connection: Connection,
): ConfirmationStates {
  let codec: Promise<RequestStateCodec<AskedAbout>> | undefined;
  const getCodec = () => {
    codec ??= key().then((bytes) =>
      createRequestStateCodec<AskedAbout>({
        key: bytes,
        ttlSeconds: QUESTION_TIMEOUT_MS / 1000,
        bind: boundTo,
      }),
    );
    // A key that could not be had (the database away) is asked for again next time.
    codec.catch(() => {
      codec = undefined;
    });
    return codec;
  };
  return {
    async mint(tool, args, ctx) {
      const nonce = randomBytes(12).toString("base64url");
      return (await getCodec()).mint({ tool, args: argsHash(args), nonce }, ctx);
    },
    async redeem(state, tool, args, ctx) {
      if (typeof state !== "string") return false;
      const states = await getCodec();
      let asked: AskedAbout | undefined;
      try {
        asked = await states.verify(state, ctx);
      } catch {
        // Malformed, forged, expired, or bound to another caller.
        return false;
      }
      if (asked?.tool !== tool || asked.args !== argsHash(args)) return false;
      return firstRedemption(connection, state);
    },
  };
}

/** Derives the states' key from the app's secret: never the secret itself, nor its JWT use. */
export function keyFromSecret(secret: string): () => Promise<Uint8Array> {
  const key = new Uint8Array(hkdfSync("sha256", secret, "terreno-mcp", "mcp.requestState", 32));
  return async () => key;
}

const KEYS = "mcp_request_state_keys";

/**
 * A key kept in the app's database, for an app without a JWT secret: the first instance to
 * need one creates it (a unique insert, so racing instances agree), and every one reads it.
 */
export function keyFromDatabase(connection: Connection): () => Promise<Uint8Array> {
  return async () => {
    try {
      const keys = connection.db?.collection<{ _id: string; key: string }>(KEYS);
      if (!keys) throw new Error("The database is not connected.");
      let found = await keys.findOne({ _id: "confirmations" });
      if (!found) {
        await keys
          .insertOne({ _id: "confirmations", key: randomBytes(32).toString("base64") })
          .catch((error: { code?: number }) => {
            if (error.code !== 11000) throw error;
          });
        found = await keys.findOne({ _id: "confirmations" });
      }
      if (!found) throw new Error("The confirmations key was not stored.");
      return new Uint8Array(Buffer.from(found.key, "base64"));
    } catch (error) {
      throw unavailable(error);
    }
  };
}
