/**
 * The 2025 era's elicitation answers, across instances. A question waits in the process whose
 * per-request server asked it, on the call's SSE stream; the client's answer is a separate POST,
 * which a load balancer may send to any instance. So every question is recorded here, in
 * MongoDB, before the client sees it: open, for one session and caller, until it expires. An
 * instance that hears an answer it is not waiting for leaves it on that record, and only
 * there: an answer to no open question of this session and caller is refused and stored
 * nowhere. The instance that asked takes the answer from here while its question is open.
 * Expiry is checked on every read and records are swept as questions are asked, since not
 * every database has TTL indexes.
 */
import type { Connection } from "mongoose";

/** A question the client may answer on any instance: its wire id, session and caller. */
interface OpenQuestion {
  wireId: string;
  session: string;
  principal: string;
}

interface RelayedAnswer extends OpenQuestion {
  /** The JSON-RPC response, as the client sent it. */
  response: unknown;
}

export interface AnswerRelay {
  /** Records a question as open, for this long, before the client is asked it. */
  open(question: OpenQuestion, waitsMs: number): Promise<void>;
  /**
   * Leaves an answer on its question's record, when that question is open, unanswered, and of
   * this session and caller; false (nothing stored) otherwise.
   */
  leave(answer: RelayedAnswer): Promise<boolean>;
  /** Takes (and closes) the answered questions among these. */
  take(wireIds: readonly string[]): Promise<RelayedAnswer[]>;
  /** Closes questions no longer waited for (answered, cancelled or timed out). */
  close(wireIds: readonly string[]): Promise<void>;
}

const COLLECTION = "mcp_elicitation_answers";
/** How long a record outlives its question before a sweep removes it. */
const SWEEP_AFTER_MS = 5 * 60_000;

interface StoredQuestion {
  _id: string;
  session: string;
  principal: string;
  expiresAt: Date;
  /** The answer, as JSON text (a form's keys are the client's), once one was left. */
  response?: string;
}

export function mongoAnswerRelay(connection: Connection): AnswerRelay {
  const questions = () => {
    const collection = connection.db?.collection<StoredQuestion>(COLLECTION);
    if (!collection) throw new Error("The database is not connected.");
    return collection;
  };
  return {
    async open(question, waitsMs) {
      const collection = questions();
      const now = Date.now();
      await collection.deleteMany({ expiresAt: { $lt: new Date(now - SWEEP_AFTER_MS) } });
      await collection.insertOne({
        _id: question.wireId,
        session: question.session,
        principal: question.principal,
        expiresAt: new Date(now + waitsMs),
      });
    },
    async leave(answer) {
      const result = await questions().updateOne(
        {
          _id: answer.wireId,
          session: answer.session,
          principal: answer.principal,
          expiresAt: { $gt: new Date() },
          response: { $exists: false },
        },
        { $set: { response: JSON.stringify(answer.response) } },
      );
      return result.matchedCount === 1;
    },
    async take(wireIds) {
      if (wireIds.length === 0) return [];
      const collection = questions();
      const found = await collection
        .find({ _id: { $in: [...wireIds] }, response: { $exists: true } })
        .toArray();
      if (found.length === 0) return [];
      await collection.deleteMany({ _id: { $in: found.map((doc) => doc._id) } });
      return found.map((doc) => ({
        wireId: doc._id,
        session: doc.session,
        principal: doc.principal,
        response: JSON.parse(doc.response as string) as unknown,
      }));
    },
    async close(wireIds) {
      if (wireIds.length === 0) return;
      await questions().deleteMany({ _id: { $in: [...wireIds] } });
    },
  };
}
