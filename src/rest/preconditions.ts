/**
 * REST's conditional requests (RFC 9110 §13) on record versions (src/core/versions.ts): every
 * read and write of one record sends its strong `ETag`, `If-Match` makes a PATCH or DELETE
 * conditional (412 when stale), and a GET whose `If-None-Match` names the current version is
 * answered 304 by Express's freshness check.
 */
import type { Request, Response } from "express";
import { etagOf, type Precondition, VERSION_FIELD } from "../core/versions.js";

/**
 * `If-Match` as a precondition, or undefined when absent or `*` (any current record). Only
 * strong tags of a version can match (§13.1.1 compares strongly); none → it never holds.
 */
export function ifMatch(req: Request): Precondition | undefined {
  const header = req.headers["if-match"];
  if (header === undefined || header.trim() === "*") return undefined;
  const versions: number[] = [];
  for (const [, weak, tag] of header.matchAll(/(W\/)?"([^"]*)"/g)) {
    if (!weak && tag !== undefined && /^\d{1,15}$/.test(tag)) versions.push(Number(tag));
  }
  return { versions, from: "if-match" };
}

/** Sets the `ETag` of a record as presented (`data.version`), when it has one. */
export function setEtag(res: Response, data: unknown): void {
  const version = (data as Record<string, unknown> | null)?.[VERSION_FIELD];
  if (typeof data === "object" && Number.isSafeInteger(version)) {
    res.setHeader("ETag", etagOf(version as number));
  }
}
