/**
 * The 2025 era's elicitation answers, across instances. A question waits in the process whose
 * per-request server asked it, on the call's SSE stream; the client's answer is a separate POST,
 * which a load balancer may send to any instance. An instance that hears an answer it is not
 * waiting for leaves it here, in MongoDB, and the instance that is waiting takes it from here
 * while its questions are open. Answers are stored as JSON text (a form's keys are the
 * client's) and swept after a quarter of an hour, since not every database has TTL indexes.
 */
import type { Connection } from "mongoose";

interface RelayedAnswer {
  wireId: string;
  session: string;
  principal: string;
  /** The JSON-RPC response, as the client sent it. */
  response: unknown;
}

export interface AnswerRelay {
  /** Leaves an answer for whichever instance asked the question. */
  leave(answer: RelayedAnswer): Promise<void>;
  /** Takes (and removes) the answers left for these questions. */
  take(wireIds: readonly string[]): Promise<RelayedAnswer[]>;
}

const COLLECTION = "mcp_elicitation_answers";
/** Longer than any question waits (10 minutes), so no answer is swept before it is taken. */
const KEEP_MS = 15 * 60_000;

interface StoredAnswer {
  _id: string;
  session: string;
  principal: string;
  response: string;
  createdAt: Date;
}

export function mongoAnswerRelay(connection: Connection): AnswerRelay {
  const answers = () => connection.db?.collection<StoredAnswer>(COLLECTION);
  return {
    async leave(answer) {
      const collection = answers();
      if (!collection) throw new Error("The database is not connected.");
      const now = new Date();
      await collection.deleteMany({ createdAt: { $lt: new Date(now.getTime() - KEEP_MS) } });
      await collection.replaceOne(
        { _id: answer.wireId },
        {
          session: answer.session,
          principal: answer.principal,
          response: JSON.stringify(answer.response),
          createdAt: now,
        },
        { upsert: true },
      );
    },
    async take(wireIds) {
      const collection = answers();
      if (!collection || wireIds.length === 0) return [];
      const found = await collection.find({ _id: { $in: [...wireIds] } }).toArray();
      if (found.length === 0) return [];
      await collection.deleteMany({ _id: { $in: found.map((doc) => doc._id) } });
      return found.map((doc) => ({
        wireId: doc._id,
        session: doc.session,
        principal: doc.principal,
        response: JSON.parse(doc.response) as unknown,
      }));
    },
  };
}
