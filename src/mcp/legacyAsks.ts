/**
 * 2025-era confirmations over the stateless endpoint. A 2025-era client declares elicitation
 * once, at `initialize`, which no later per-request server sees. So an `initialize` that
 * declares form elicitation is answered with an `Mcp-Session-Id` that says so: it names no
 * server state, only what the client declared. A confirmed tool's call in such a session is
 * answered on an SSE stream (httpHandler.ts), on which the server sends `elicitation/create`
 * related to the call, as the 2025 transport allows. The client POSTs its answer, which this
 * registry hands to the waiting server by the question's id (made unique here, because every
 * per-request server numbers its requests from 0), for the same session and caller only.
 * Questions wait in this process: behind a load balancer, route by `Mcp-Session-Id`, or the
 * answer is not heard and the call ends unconfirmed when the question times out.
 */
import { randomUUID } from "node:crypto";
import {
  type ClientCapabilities,
  isInitializeRequest,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResponse,
  type JSONRPCMessage,
  type JSONRPCResponse,
  type RequestId,
  type TransportSendOptions,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { elicitsForms } from "./confirm.js";

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

/** The questions waiting for their answer POST, across the endpoint's per-request servers. */
export class LegacyAsks {
  readonly #waiting = new Map<string, Waiting>();

  /**
   * Hands a POSTed answer to the server waiting for it; false when no question of this
   * session and caller has that id (the POST is then served as any other: accepted, unheard).
   */
  answer(body: unknown, session: string | null, principal: string): boolean {
    if (!isJSONRPCResponse(body) || typeof body.id !== "string") return false;
    const waiting = this.#waiting.get(body.id);
    if (!waiting || waiting.session !== session || waiting.principal !== principal) return false;
    this.#waiting.delete(body.id);
    waiting.deliver(body);
    return true;
  }

  /** A stateless transport for one request whose questions wait here. */
  transport(session: string | null, principal: string, stream: boolean) {
    return new AskingTransport(this.#waiting, session ?? "", principal, stream);
  }
}

/** The SDK's stateless transport, giving each question it sends a unique id. */
class AskingTransport extends WebStandardStreamableHTTPServerTransport {
  /** This request's questions: the server's own id → the id on the wire. */
  readonly #asked = new Map<RequestId, string>();

  constructor(
    private readonly waiting: Map<string, Waiting>,
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
      this.waiting.set(wireId, {
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
        this.waiting.delete(wireId);
        return super.send(
          { ...message, params: { ...message.params, requestId: wireId } },
          options,
        );
      }
    }
    return super.send(message, options);
  }

  override async close(): Promise<void> {
    for (const wireId of this.#asked.values()) this.waiting.delete(wireId);
    return super.close();
  }
}
