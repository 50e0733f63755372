/**
 * A body limit for a library that reads the request stream itself (Better Auth's Node adapter),
 * where the app's JSON parser never runs: the body is read here, within `maxBytes`, and left on
 * `req.body` as text, which the adapter uses when the stream is already consumed. A larger body
 * (declared, or streamed without a length) is answered 413 with a JSON error before the library
 * sees a byte of it; a body that cannot be read is a 400. Both in the OAuth error shape
 * (`{error, error_description}`), as the library's own refusals.
 */
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";

/** The refusal in the OAuth error shape the library's routes answer with. */
const refusal = (description: string) => ({
  error: "invalid_request",
  error_description: description,
});

export function rawBodyLimit(maxBytes: number): RequestHandler {
  const read = express.raw({ type: () => true, limit: maxBytes });
  return (req: Request, res: Response, next: NextFunction) => {
    read(req, res, (error?: unknown) => {
      if (error) {
        const { status, type } = error as { status?: number; type?: string };
        const tooLarge = status === 413 || type === "entity.too.large";
        if (!tooLarge && (status === undefined || status >= 500)) {
          next(error);
          return;
        }
        // The rest of an oversize body is not worth reading: close once answered.
        res.setHeader("Connection", "close");
        res
          .status(tooLarge ? 413 : 400)
          .json(
            tooLarge
              ? refusal(`The request body is larger than ${maxBytes} bytes.`)
              : refusal("The request body could not be read."),
          );
        return;
      }
      if (Buffer.isBuffer(req.body)) req.body = req.body.toString("utf8");
      next();
    });
  };
}
