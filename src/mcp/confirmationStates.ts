/**
 * 2026-07-28 confirmations bound to their question. The question travels with a signed
 * `requestState` (the SDK's `createRequestStateCodec`, HMAC-SHA256): it names the tool and the
 * hash of the arguments' canonical JSON (RFC 8785), is bound to the caller, and expires with
 * the question (10 minutes). A retry's accepted answer counts only with such a state for the
 * very same tool, arguments and caller; a confirmation for todo A cannot delete todo B, a
 * first call cannot carry its own "yes", and another caller's or an expired state is no
 * state. The key is derived from the app's JWT secret (else kept in the app's database), so
 * every instance honours what any of them issued.
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
import type { McpCaller } from "./caller.js";
import { LEGACY_ASK_TIMEOUT_MS } from "./confirm.js";

/** What a question's state says it asked about. */
interface AskedAbout {
  tool: string;
  /** SHA-256 of the arguments' canonical JSON. */
  args: string;
}

export interface ConfirmationStates {
  /** The state to send with the question about this call. */
  mint(tool: string, args: unknown, ctx: ServerContext): Promise<string>;
  /**
   * Whether `state` (what the retry echoed) was issued for this tool, these arguments and this
   * caller, and is unexpired. Anything else, a forgery included, is false, never a throw.
   */
  matches(state: unknown, tool: string, args: unknown, ctx: ServerContext): Promise<boolean>;
}

function argsHash(args: unknown): string {
  return createHash("sha256")
    .update(canonicalize(args ?? {}) ?? "{}")
    .digest("hex");
}

/** The caller a request's state is bound to: its user, else its address. */
function boundTo(ctx: ServerContext): string {
  const caller = ctx.http?.authInfo?.extra?.caller as McpCaller | undefined;
  return `tools/call\0${callerKey(caller?.user, caller?.ip)}`;
}

export function confirmationStates(key: () => Promise<Uint8Array>): ConfirmationStates {
  let codec: Promise<RequestStateCodec<AskedAbout>> | undefined;
  const getCodec = () => {
    codec ??= key().then((bytes) =>
      createRequestStateCodec<AskedAbout>({
        key: bytes,
        ttlSeconds: LEGACY_ASK_TIMEOUT_MS / 1000,
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
      return (await getCodec()).mint({ tool, args: argsHash(args) }, ctx);
    },
    async matches(state, tool, args, ctx) {
      if (typeof state !== "string") return false;
      const states = await getCodec();
      try {
        const asked = await states.verify(state, ctx);
        return asked?.tool === tool && asked.args === argsHash(args);
      } catch {
        // Malformed, forged, expired, or bound to another caller.
        return false;
      }
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
      throw new TerrenoError(
        "database_unavailable",
        "The confirmation could not be prepared: the database is unavailable.",
        undefined,
        { cause: error },
      );
    }
  };
}
