/**
 * One change at a time to a workspace's owners, so "the last owner cannot be removed or
 * demoted" holds under races: two owners demoting each other at once must not leave none.
 *
 * Counting the owners and then changing a membership is a read-modify-write, which FerretDB does
 * not isolate across connections (docs/production.md, "What the counters guarantee"). So every
 * change that may take an owner away (a demotion, a removal, leaving) first claims the
 * workspace's one lock slot in the claim store (src/ops/claimCounter.ts): an `_id` insert, which
 * exactly one caller wins on MongoDB and FerretDB alike, across connections and instances. The
 * count is read, and the change written, while it is held; then it is released.
 *
 * A holder that dies keeps the lock until it expires (LOCK_MS), after which the next caller
 * deletes it and claims again. The bound: a change taking longer than LOCK_MS to write could
 * overlap the next one; the changes are single-document writes, far below it.
 */
import type { Connection } from "mongoose";
import { TerrenoError } from "../core/errors.js";
import { ClaimStore } from "../ops/claimCounter.js";

const LOCK_MS = 15_000;
const ATTEMPTS = 40;
const WAIT_MS = 25;

const groupOf = (workspaceId: string) => `workspace_owners:${workspaceId}`;
const SERIES = "lock";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `change` holding the workspace's owner lock. Waits for a holder to finish (about a
 * second at most), then answers 409 `conflict` asking to retry.
 */
export async function withOwnerLock<T>(
  connection: Connection,
  workspaceId: string,
  change: () => Promise<T>,
): Promise<T> {
  const store = ClaimStore.on(connection);
  const group = groupOf(workspaceId);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await store.claimAt(group, SERIES, 1, new Date(Date.now() + LOCK_MS))) {
      try {
        return await change();
      } finally {
        await store.release(group, SERIES, 1);
      }
    }
    // Reading the group deletes an expired (abandoned) lock, so the next claim can win.
    if ((await store.claims(group)).length > 0) await sleep(WAIT_MS);
  }
  throw new TerrenoError(
    "conflict",
    "Another change to this workspace's owners is in progress; retry shortly.",
  );
}
