/**
 * The SDK's low-level Server, as built per request (mcpServerFactory.ts), without the one cost
 * its close pays for nothing: `Protocol._onclose` builds a "Connection closed" SdkError, with a
 * captured stack trace, for every request, to hand to pending responses and in-flight handlers.
 * A per-request server closes after its answer, when there are none, so that error is never
 * seen: it is then built without a stack. Anything pending gets the SDK's own error, as before.
 */
import { Server } from "@modelcontextprotocol/server";

/** The SDK's internal maps `_onclose` settles (Protocol's private fields). */
interface ProtocolInternals {
  _responseHandlers?: { size: number };
  _requestHandlerAbortControllers?: { size: number };
}

export class RequestServer extends Server {
  protected override _onclose(): void {
    const internals = this as unknown as ProtocolInternals;
    // An unknown shape (a later SDK) or anything pending: the SDK's own close, untouched.
    const idle =
      internals._responseHandlers?.size === 0 &&
      internals._requestHandlerAbortControllers?.size === 0;
    if (!idle) {
      super._onclose();
      return;
    }
    const limit = Error.stackTraceLimit;
    const onclose = this.onclose;
    // Whatever the close callback does runs with stacks as usual.
    if (onclose) {
      this.onclose = () => {
        Error.stackTraceLimit = limit;
        onclose();
      };
    }
    Error.stackTraceLimit = 0;
    try {
      super._onclose();
    } finally {
      Error.stackTraceLimit = limit;
      this.onclose = onclose;
    }
  }
}
