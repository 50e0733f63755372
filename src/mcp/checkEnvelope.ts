/**
 * /mcp's envelope rules, the same for both protocol eras: an Accept the endpoint can answer,
 * one request per POST (no batches), and no own `__proto__` key, which the SDK's schema parse
 * would drop without a word (refused as the core refuses it elsewhere, src/http/bodyErrors.ts).
 */
import type { NextFunction, Request, Response } from "express";
import { TerrenoError } from "../core/errors.js";
import { bodyProtoKey } from "../http/bodyErrors.js";
import { sendJsonRpcError } from "./jsonRpcError.js";

export function checkEnvelope(req: Request, res: Response, next: NextFunction) {
  // 2026-era requests skip the SDK's Accept check and 2025-era batches are still accepted
  // there; both are refused here so every era gets the same clear 4xx.
  const accept = req.headers.accept ?? "";
  if (!/application\/json|application\/\*|\*\/\*/.test(accept)) {
    return sendJsonRpcError(
      res,
      new TerrenoError("not_acceptable", "Send Accept: application/json, text/event-stream."),
    );
  }
  if (Array.isArray(req.body)) {
    return sendJsonRpcError(
      res,
      new TerrenoError(
        "invalid_request",
        "JSON-RPC batches are not supported; send one request per POST.",
      ),
    );
  }
  const protoKey = bodyProtoKey(req.body);
  if (protoKey) return sendJsonRpcError(res, protoKey);
  next();
}
