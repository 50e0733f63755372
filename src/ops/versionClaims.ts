/**
 * The core's `(record, version)` lock (src/core/versionedWrite.ts) on the one claim primitive
 * (claimCounter.ts): a unique insert, atomic on MongoDB and on FerretDB, across connections and
 * instances. A claim lives only while its write runs and is released after it; one left by a
 * writer that died expires after CLAIM_TTL_MS and is then cleared by the next writer.
 */
import type { Connection } from "mongoose";
import type { VersionClaims } from "../core/types.js";
import { ClaimStore } from "./claimCounter.js";

/** Longer than any one write runs; only a crashed writer's claim ever reaches it. */
const CLAIM_TTL_MS = 60_000;
const SERIES = "v";

const groupOf = (record: string) => `version:${record}`;

async function claim(connection: Connection, record: string, version: number): Promise<boolean> {
  const store = ClaimStore.on(connection);
  const expiresAt = () => new Date(Date.now() + CLAIM_TTL_MS);
  if (await store.claimAt(groupOf(record), SERIES, version, expiresAt())) return true;
  // Reading the group deletes its expired claims: a dead writer's slot frees up here.
  const live = await store.claims(groupOf(record));
  if (live.some((c) => c.n === version)) return false;
  return store.claimAt(groupOf(record), SERIES, version, expiresAt());
}

async function release(connection: Connection, record: string, version: number): Promise<void> {
  await ClaimStore.on(connection).release(groupOf(record), SERIES, version);
}

/** The app's version claims (`AppServices.versionClaims`). */
export const versionClaims: VersionClaims = { claim, release };
