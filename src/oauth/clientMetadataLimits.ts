/**
 * Length caps on client metadata (RFC 7591 fields), for dynamic registration and for Client ID
 * Metadata Documents alike: the library stores what it is given, and a client's name and URIs are
 * shown on the consent page and the connected-apps list, so a 5 MB `client_name` was stored
 * whole. The caps are generous for any real client. The refusal names the field.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";

const NAME = 200;
const URI = 2048;
const WORD = 100;

/** Per string field: its most characters. */
const STRING_CAPS: Record<string, number> = {
  client_name: NAME,
  client_uri: URI,
  logo_uri: URI,
  tos_uri: URI,
  policy_uri: URI,
  jwks_uri: URI,
  initiate_login_uri: URI,
  software_id: NAME,
  software_version: WORD,
  scope: 1000,
  token_endpoint_auth_method: WORD,
  application_type: WORD,
  type: WORD,
};

/** Per list field: its most items, and each item's most characters. */
const LIST_CAPS: Record<string, { items: number; each: number }> = {
  redirect_uris: { items: 20, each: URI },
  post_logout_redirect_uris: { items: 20, each: URI },
  contacts: { items: 10, each: 320 },
  grant_types: { items: 10, each: WORD },
  response_types: { items: 10, each: WORD },
};

/** The caps as JSON Schema keywords, for the registration body in /openapi.json. */
export function clientMetadataFieldSchema(field: string): Record<string, unknown> {
  const list = LIST_CAPS[field];
  if (list) {
    return { type: "array", maxItems: list.items, items: { type: "string", maxLength: list.each } };
  }
  const cap = STRING_CAPS[field];
  return cap ? { type: "string", maxLength: cap } : { type: "string" };
}

/** What is too long in `fields` ("client_name is longer than 200 characters"), or undefined. */
export function clientMetadataTooLong(fields: Record<string, unknown>): string | undefined {
  for (const [field, cap] of Object.entries(STRING_CAPS)) {
    const value = fields[field];
    if (typeof value === "string" && value.length > cap) {
      return `${field} is longer than ${cap} characters`;
    }
  }
  for (const [field, cap] of Object.entries(LIST_CAPS)) {
    const value = fields[field];
    if (!Array.isArray(value)) continue;
    if (value.length > cap.items) return `${field} lists more than ${cap.items} entries`;
    if (value.some((item) => typeof item === "string" && item.length > cap.each)) {
      return `${field} has an entry longer than ${cap.each} characters`;
    }
  }
  return undefined;
}

/**
 * Middleware for the registration endpoint, after the body was read as text (rawBodyLimit):
 * refuses over-long metadata with RFC 7591's `invalid_client_metadata`; anything it cannot read
 * as a JSON object is left to the library to refuse.
 */
export function registrationFieldCaps(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== "POST" || typeof req.body !== "string") {
      next();
      return;
    }
    let fields: unknown;
    try {
      fields = JSON.parse(req.body);
    } catch {
      next();
      return;
    }
    const problem =
      typeof fields === "object" && fields !== null && !Array.isArray(fields)
        ? clientMetadataTooLong(fields as Record<string, unknown>)
        : undefined;
    if (!problem) {
      next();
      return;
    }
    res.status(400).json({ error: "invalid_client_metadata", error_description: problem });
  };
}
