/**
 * The JWT secret: `JWT_SECRET`, else a development secret generated once and kept in
 * `example-backend/.data/jwt-secret`, so tokens stay valid across restarts.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { Env } from "./chat/modelFromEnv.js";
import { DATA_DIR, displayPath } from "./paths.js";

export interface JwtSecret {
  secret: string;
  /** Set when the secret is the generated development one. */
  warning?: string;
}

export async function loadJwtSecret(env: Env, dataDir = DATA_DIR): Promise<JwtSecret> {
  if (env.JWT_SECRET) return { secret: env.JWT_SECRET };
  const file = path.join(dataDir, "jwt-secret");
  let secret = (await fs.readFile(file, "utf8").catch(() => "")).trim();
  if (secret.length < 32) {
    secret = randomBytes(32).toString("hex");
    await fs.mkdir(dataDir, { recursive: true });
    await fs.writeFile(file, `${secret}\n`, { mode: 0o600 });
  }
  return {
    secret,
    warning:
      `JWT_SECRET is not set: using a development secret stored in ${displayPath(file)}. ` +
      "Set JWT_SECRET to a long random value anywhere but your own machine.",
  };
}

/**
 * `JWT_PREVIOUS_SECRETS`: the secrets used before `JWT_SECRET`, comma-separated, after a
 * rotation. Tokens they signed (and the OAuth signing keys they encrypted) stay usable; they
 * never sign. A bad entry stops the server at start-up, naming the variable.
 */
export function previousSecretsFrom(value: string | undefined, current: string): string[] {
  if (value === undefined || value.trim() === "") return [];
  return value.split(",").map((entry, index) => {
    const secret = entry.trim();
    if (secret.length < 32) {
      throw new Error(
        `JWT_PREVIOUS_SECRETS: entry ${index + 1} is shorter than 32 characters (comma-separated secrets, newest first).`,
      );
    }
    if (secret === current) {
      throw new Error(`JWT_PREVIOUS_SECRETS: entry ${index + 1} is the current JWT_SECRET.`);
    }
    return secret;
  });
}
