/**
 * Node answers header overflows and malformed requests itself, as bare text, before Express
 * sees them. This keeps the framework's JSON error shape for those too.
 */
import type { Server } from "node:http";
import { TerrenoError, toErrorBody } from "../core/errors.js";

export function answerClientErrorsAsJson(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const failure =
      error.code === "HPE_HEADER_OVERFLOW"
        ? new TerrenoError("headers_too_large", "The request headers or URL are too large.")
        : new TerrenoError("validation_failed", "The request could not be read.");
    const body = JSON.stringify(toErrorBody(failure));
    socket.end(
      `HTTP/1.1 ${failure.status} ${failure.title}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
