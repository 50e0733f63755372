/**
 * REST's adapter of the idempotency keys (src/ops/idempotency.ts): a `POST` create, action or
 * custom tool route with an `Idempotency-Key` header runs once per caller and key. The answer
 * (status, body, content type) is kept when the route answers below 500 (429 aside: a rate
 * limit says "not now", not "no"), before the client sees it, so a retry that follows replays it
 * with `Idempotent-Replayed: true`; a 5xx or 429 releases the key, so a retry runs. Anonymous
 * callers' keys are ignored: keys are per user, and a key shared by every anonymous caller would
 * replay one caller's answer to another.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { AppServices } from "../core/types.js";
import { fingerprintOf, parseIdempotencyKey } from "../ops/idempotency.js";

const HEADER = "Idempotency-Key";
/** Headers a replay repeats, besides the status and body. */
const KEPT_HEADERS = ["content-type", "location", "etag"];

interface KeptAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** Whether an answer of this status is kept and replayed, or the key released. */
const kept = (status: number) => status < 500 && status !== 429;

function bodyText(chunk: unknown): string {
  if (typeof chunk === "string") return chunk;
  if (Buffer.isBuffer(chunk)) return chunk.toString("utf8");
  return "";
}

function replay(res: Response, answer: KeptAnswer): void {
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader("Idempotent-Replayed", "true");
  res.end(answer.body);
}

/** The middleware for one POST route (before its handler, after its rate limit). */
export function idempotent(services: AppServices): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const raw = req.headers[HEADER.toLowerCase()];
    const guard = services.idempotency;
    if (raw === undefined || !guard || !req.user) return next();
    try {
      const key = parseIdempotencyKey(raw, HEADER);
      const start = await guard.begin({
        scope: "http",
        caller: req.user.id,
        key,
        fingerprint: fingerprintOf({ method: req.method, url: req.originalUrl, body: req.body }),
      });
      if (start.state === "replay") {
        replay(res, start.answer as KeptAnswer);
        return;
      }
      // The answer is stored before it is sent: a retry that follows it never runs again.
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      let ended = false;
      res.end = ((...args: unknown[]) => {
        if (ended) return end(...args);
        ended = true;
        const status = res.statusCode;
        const headers: Record<string, string> = {};
        for (const name of KEPT_HEADERS) {
          const value = res.getHeader(name);
          if (value !== undefined) headers[name] = String(value);
        }
        const answer: KeptAnswer = { status, body: bodyText(args[0]), headers };
        const settled = kept(status) ? start.finish(answer) : start.release();
        settled
          .catch((error: unknown) => {
            services.logger.error({ err: error }, "idempotency: could not settle a key");
          })
          .finally(() => end(...args));
        return res;
      }) as Response["end"];
      next();
    } catch (error) {
      next(error);
    }
  };
}
