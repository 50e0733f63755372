/**
 * Users stored before the email skeleton existed have none, so the unique index cannot stop a
 * lookalike of their email. Before a process creates its first account (each user model once),
 * this gives every such user its skeleton, by a conditional update per user, a few at a time.
 * Where two old accounts already look alike, one gets the skeleton and the other stays without
 * one: both keep working, and any new lookalike of them is refused. (One update per user, not a
 * bulk write: FerretDB ends a whole multi-update command at its first duplicate.)
 */
import type { mongo } from "mongoose";
import type { AnyModel } from "../core/types.js";
import { emailSkeleton } from "./emailAddress.js";
import { EMAIL_SKELETON } from "./userPlugin.js";

/** Updates in flight at once. */
const PARALLEL = 16;
const backfills = new WeakMap<AnyModel, Promise<void>>();

/** MongoDB's code 11000, or FerretDB's "UNIQUE constraint failed" on an update. */
function isDuplicateKey(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 11000 || (typeof message === "string" && /UNIQUE constraint/.test(message));
}

async function backfill(userModel: AnyModel): Promise<void> {
  const missing = { [EMAIL_SKELETON]: { $exists: false } };
  // Through Mongoose, not the raw collection: a query waits for the connection to open, while
  // the collection's find() before that returns no cursor (a sign-up right after start).
  const cursor = userModel
    .find(missing, { email: 1 })
    .lean<{ _id: mongo.ObjectId; email?: unknown }>()
    .cursor();
  const give = async (id: mongo.ObjectId, email: string) => {
    try {
      await userModel.collection.updateOne(
        { _id: id, ...missing },
        { $set: { [EMAIL_SKELETON]: emailSkeleton(email) } },
      );
    } catch (error) {
      // An old lookalike of an account that already has this skeleton.
      if (!isDuplicateKey(error)) throw error;
    }
  };
  let batch: Array<Promise<void>> = [];
  for await (const doc of cursor) {
    if (typeof doc.email !== "string") continue;
    batch.push(give(doc._id, doc.email));
    if (batch.length >= PARALLEL) {
      await Promise.all(batch);
      batch = [];
    }
  }
  await Promise.all(batch);
}

/** Resolves once every user of `userModel` that can have a skeleton has one (once a process). */
export function backfillEmailSkeletons(userModel: AnyModel): Promise<void> {
  let pending = backfills.get(userModel);
  if (!pending) {
    pending = backfill(userModel);
    backfills.set(userModel, pending);
    // A failure (the database away) is retried by the next sign-up.
    pending.catch(() => backfills.delete(userModel));
  }
  return pending;
}
