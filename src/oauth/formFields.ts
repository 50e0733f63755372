/** What the OAuth pages read from a request: the query they were opened with, a form field. */
import type { Request } from "express";

/** The raw query string (the provider's signed `oauth_query`), without the `?`. */
export const queryOf = (req: Request): string => {
  const index = req.originalUrl.indexOf("?");
  return index < 0 ? "" : req.originalUrl.slice(index + 1);
};

/** A posted form field as a string ("" when absent or not a string). */
export const field = (req: Request, name: string): string => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value : "";
};
