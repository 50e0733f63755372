/**
 * 2025-era confirmations over the stateless endpoint. A 2025-era client declares elicitation
 * once, at `initialize`, which no later per-request server sees. So an `initialize` that
 * declares form elicitation is answered with an `Mcp-Session-Id` that says so: it names no
 * server state, only what the client declared. A confirmed tool's call in such a session is
 * answered on an SSE stream (httpHandler.ts), on which the server sends `elicitation/create`
 * related to the call, as the 2025 transport allows. The client POSTs its answer, which this
 * registry hands to the waiting server by the question's id (made unique here, because every
 * per-request server numbers its requests from 0), for the same session and caller only.
 * Questions wait in this process; an answer POSTed to another instance reaches it through
 * the app's database (answerRelay.ts), so no session affinity is needed. An answer to no open
 * question (made up, another caller's, already answered, expired) or larger than 16 KB is
 * refused and kept nowhere; the endpoint charges every answer POST the caller's tool-call
 * points (httpHandler.ts).
 */
import { randomUUID } from "node:crypto";
import {
  type ClientCapabilities,
  isInitializeRequest,
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCResponse,
  type RequestId,
  type TransportSendOptions,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { TerrenoError } from "../core/errors.js";
import type { AnswerRelay } from "./answerRelay.js";
import { elicitsForms, QUESTION_TIMEOUT_MS } from "./confirm.js";

/** The prefix of a session id whose client declared form elicitation at `initialize`. */
const FORM_SESSION = "terreno-elicit-form.";

/** What a session's id says its client declared (form elicitation), or nothing. */
export function sessionCapabilities(sessionId: string | null): ClientCapabilities | undefined {
  return sessionId?.startsWith(FORM_SESSION) ? { elicitation: { form: {} } } : undefined;
}

/** The session id to answer an `initialize` with: only when its client can be asked. */
export function sessionFor(body: unknown): string | undefined {
  if (!isInitializeRequest(body)) return undefined;
  return elicitsForms(body.params.capabilities) ? `${FORM_SESSION}${randomUUID()}` : undefined;
}

interface Waiting {
  session: string;
  principal: string;
  deliver(response: JSONRPCResponse): void;
}

/** What a transport does with its questions: wait for one's answer, or stop waiting. */
interface QuestionDesk {
  /** Resolves once the question may be answered on any instance (rejects when it may not). */
  wait(wireId: string, waiting: Waiting): Promise<void>;
  forget(wireId: string): void;
}

/** The wire id this module gives a question: an answer with another id is no answer of ours. */
const WIRE_ID = /^ask-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** How often an instance with open questions looks for answers another instance heard. */
const RELAY_POLL_MS = 200;

/** The largest answer heard: a confirmation's is a few dozen bytes. */
const MAX_ANSWER_BYTES = 16 * 1024;

/** The refusal of an answer to no open question of this session and caller. */
function unasked(): TerrenoError {
  return new TerrenoError(
    "invalid_request",
    "No open question of this session and caller has this id; the answer was not taken.",
  );
}

/** The questions waiting for their answer POST, across the endpoint's per-request servers. */
export class LegacyAsks implements QuestionDesk {
  readonly #waiting = new Map<string, Waiting>();
  #poll: ReturnType<typeof setInterval> | undefined;
  #polling = false;

  /** `relay`: where questions are open to every instance and their answers left (answerRelay.ts). */
  constructor(private readonly relay?: AnswerRelay) {}

  /**
   * Takes a POSTed answer: hands it to the server waiting for it here, or leaves it on its
   * question's record for the instance that asked. Only an answer of at most 16 KB to a question
   * that is open, of this session and caller, is taken; the refusal of any other says why, and
   * nothing of it is kept.
   */
  async answer(
    body: JSONRPCResponse,
    session: string | null,
    principal: string,
  ): Promise<TerrenoError | undefined> {
    if (Buffer.byteLength(JSON.stringify(body)) > MAX_ANSWER_BYTES) {
      return new TerrenoError(
        "payload_too_large",
        `An answer may be at most ${MAX_ANSWER_BYTES / 1024} KB.`,
      );
    }
    const wireId = body.id;
    if (!session || typeof wireId !== "string" || !WIRE_ID.test(wireId)) return unasked();
    const waiting = this.#waiting.get(wireId);
    if (waiting) {
      if (waiting.session !== session || waiting.principal !== principal) return unasked();
      const closed = this.#release(wireId);
      waiting.deliver(body);
      await closed;
      return undefined;
    }
    if (!this.relay || !sessionCapabilities(session)) return unasked();
    try {
      const left = await this.relay.leave({ wireId, session, principal, response: body });
      return left ? undefined : unasked();
    } catch (error) {
      return new TerrenoError(
        "database_unavailable",
        "The answer could not be relayed to the question; try again.",
        undefined,
        { cause: error },
      );
    }
  }

  /** A stateless transport for one request whose questions wait here. */
  transport(session: string | null, principal: string, stream: boolean) {
    return new AskingTransport(this, session ?? "", principal, stream);
  }

  async wait(wireId: string, waiting: Waiting): Promise<void> {
    this.#waiting.set(wireId, waiting);
    if (!this.relay) return;
    try {
      await this.relay.open(
        { wireId, session: waiting.session, principal: waiting.principal },
        QUESTION_TIMEOUT_MS,
      );
    } catch (error) {
      // Unrecorded, the question could not be answered on another instance: it is not asked.
      this.#waiting.delete(wireId);
      throw error;
    }
    if (!this.#poll) {
      this.#poll = setInterval(() => void this.#takeRelayed(), RELAY_POLL_MS);
      this.#poll.unref();
    }
  }

  forget(wireId: string): void {
    void this.#release(wireId);
  }

  /** Stops waiting for a question, here and in the relay (so no answer to it is taken). */
  async #release(wireId: string): Promise<void> {
    this.#waiting.delete(wireId);
    if (this.#waiting.size === 0 && this.#poll) {
      clearInterval(this.#poll);
      this.#poll = undefined;
    }
    // A record left behind is closed when it expires.
    await this.relay?.close([wireId]).catch(() => {});
  }

  /** Delivers the answers other instances heard for this process's open questions. */
  async #takeRelayed(): Promise<void> {
    if (!this.relay || this.#polling || this.#waiting.size === 0) return;
    this.#polling = true;
    try {
      for (const answer of await this.relay.take([...this.#waiting.keys()])) {
        const waiting = this.#waiting.get(answer.wireId);
        if (!waiting || waiting.session !== answer.session) continue;
        if (waiting.principal !== answer.principal) continue;
        this.forget(answer.wireId);
        waiting.deliver(answer.response as JSONRPCResponse);
      }
    } catch {
      // The database is away for a moment; the next poll tries again.
    } finally {
      this.#polling = false;
    }
  }
}

/** The SDK's stateless transport, giving each question it sends a unique id. */
class AskingTransport extends WebStandardStreamableHTTPServerTransport {
  /** This request's questions: the server's own id → the id on the wire. */
  readonly #asked = new Map<RequestId, string>();

  constructor(
    private readonly desk: QuestionDesk,
    private readonly session: string,
    private readonly principal: string,
    stream: boolean,
  ) {
    super({ sessionIdGenerator: undefined, enableJsonResponse: !stream });
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isJSONRPCRequest(message)) {
      const wireId = `ask-${randomUUID()}`;
      this.#asked.set(message.id, wireId);
      await this.desk.wait(wireId, {
        session: this.session,
        principal: this.principal,
        deliver: (response) => this.onmessage?.({ ...response, id: message.id }),
      });
      return super.send({ ...message, id: wireId }, options);
    }
    // A question the server gives up on (timeout) is cancelled under its wire id.
    if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const wireId = requestId === undefined ? undefined : this.#asked.get(requestId);
      if (wireId) {
        this.desk.forget(wireId);
        return super.send(
          { ...message, params: { ...message.params, requestId: wireId } },
          options,
        );
      }
    }
    return super.send(message, options);
  }

  override async close(): Promise<void> {
    for (const wireId of this.#asked.values()) this.desk.forget(wireId);
    return super.close();
  }
}
