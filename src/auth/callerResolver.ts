/**
 * The one way any surface learns who is calling: `(headers) → User | undefined`.
 * No credentials means anonymous (undefined); credentials that fail mean a 401.
 */
import { unauthenticated } from "../core/errors.js";
import type { User } from "../core/types.js";

export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface AuthProvider {
  name: string;
  /**
   * Returns the caller when this provider recognises the credentials, `undefined` when the
   * request carries none it understands, and throws a 401 TerrenoError when they are invalid.
   */
  resolve(headers: RequestHeaders): Promise<User | undefined>;
}

export type CallerResolver = (headers: RequestHeaders) => Promise<User | undefined>;

export function bearerToken(headers: RequestHeaders): string | undefined {
  const header = headers.authorization;
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  if (!match) {
    throw unauthenticated("The Authorization header must be 'Bearer <token>'.");
  }
  return match[1];
}

/**
 * Tries providers in order; the first to recognise the credentials wins. When every
 * provider rejected them, the first rejection is reported. Providers return `undefined`
 * for credentials that are not theirs (e.g. JWT for a non-JWT token), so the provider
 * that owns a credential is the one whose message the caller sees.
 */
export function createCallerResolver(providers: readonly AuthProvider[]): CallerResolver {
  return async (headers) => {
    let firstRejection: unknown;
    for (const provider of providers) {
      try {
        const user = await provider.resolve(headers);
        // Providers of their own (`auth.providers`) are named by their provider's name.
        if (user?.authMethod === undefined && user) return { ...user, authMethod: provider.name };
        if (user) return user;
      } catch (error) {
        firstRejection ??= error;
      }
    }
    if (firstRejection) throw firstRejection;
    // A bearer token that no provider claimed is still a credential, and still invalid.
    if (headers.authorization) throw unauthenticated("The token is invalid.");
    return undefined;
  };
}
