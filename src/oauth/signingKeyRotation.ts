/**
 * Secret rotation for the OAuth signing keys. `jwt()` keeps its private keys in MongoDB
 * encrypted with the server's secret, so a restart with a new secret used to fail every token
 * and consent request with a 500 ("Failed to decrypt private key"). At start-up this re-encrypts
 * each key that only a previous secret opens with the current one (previous secrets decrypt,
 * never sign), and retires a key that no configured secret opens, with a warning: `jwt()` then
 * mints a fresh key, and the retired one's public half still verifies the tokens it signed.
 */
import type { BetterAuthPlugin } from "better-auth";
import { symmetricDecrypt, symmetricEncrypt } from "better-auth/crypto";

interface StoredKey {
  id: string;
  privateKey: string;
  expiresAt?: Date | null;
}

async function decryptWith(secret: string, stored: string): Promise<string | undefined> {
  try {
    return await symmetricDecrypt({ key: secret, data: JSON.parse(stored) as string });
  } catch {
    return undefined;
  }
}

export function signingKeyRotation(secret: string, previousSecrets: readonly string[]) {
  return {
    id: "terreno-signing-key-rotation",
    async init(ctx) {
      const keys = await ctx.adapter.findMany<StoredKey>({ model: "jwks" });
      const now = new Date();
      for (const key of keys) {
        if (key.expiresAt && new Date(key.expiresAt) <= now) continue;
        if ((await decryptWith(secret, key.privateKey)) !== undefined) continue;
        let plain: string | undefined;
        for (const previous of previousSecrets) {
          plain = await decryptWith(previous, key.privateKey);
          if (plain !== undefined) break;
        }
        if (plain !== undefined) {
          const privateKey = JSON.stringify(await symmetricEncrypt({ key: secret, data: plain }));
          await ctx.adapter.update({
            model: "jwks",
            where: [{ field: "id", value: key.id }],
            update: { privateKey },
          });
          ctx.logger.info(
            `oauthServer: signing key ${key.id} re-encrypted with the current secret.`,
          );
          continue;
        }
        await ctx.adapter.update({
          model: "jwks",
          where: [{ field: "id", value: key.id }],
          update: { expiresAt: now },
        });
        ctx.logger.warn(
          `oauthServer: signing key ${key.id} was encrypted with a secret that is neither the current one nor in previousSecrets; it is retired and a new key is made. Tokens it signed stay valid until they expire. To keep a key across a secret change, pass the old secret in previousSecrets.`,
        );
      }
    },
  } satisfies BetterAuthPlugin;
}
