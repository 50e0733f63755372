/**
 * The one password check behind `/auth/login` and the OAuth sign-in page. A client presenting a
 * valid device token for the account (deviceTokens.ts) is judged only by that device's own
 * failures; any other client by the app's lockout (src/ops/loginLockout.ts: per address, and per
 * account). Both counts are claimed before the password is checked. A successful login from a
 * client without one gives it a device token.
 */
import type { HydratedDocument } from "mongoose";
import type { AnyModel } from "../core/types.js";
import type { AttemptClaim, LoginGuard } from "../ops/loginLockout.js";
import {
  createDeviceToken,
  deviceSucceeded,
  deviceTokenModel,
  findDeviceToken,
} from "./deviceTokens.js";
import { verifyPassword } from "./password.js";

export interface LoginAttempt {
  /** Normalised (emailAddress.ts). */
  email: string;
  password: string;
  ip: string;
  /** The device token the client presented, if any. */
  deviceToken?: string;
}

export type LoginVerdict =
  | { kind: "ok"; user: HydratedDocument<unknown>; deviceToken: string }
  | { kind: "locked"; seconds: number }
  | { kind: "invalid" }
  | { kind: "disabled" };

export async function judgeLogin(
  userModel: AnyModel,
  guard: LoginGuard | undefined,
  attempt: LoginAttempt,
): Promise<LoginVerdict> {
  const { email, password, ip } = attempt;
  const devices = deviceTokenModel(userModel.db);
  const user = email
    ? await userModel
        .findOne({ email: { $eq: email } })
        .select("+passwordHash")
        .exec()
    : null;
  const device = user ? await findDeviceToken(devices, attempt.deviceToken, user._id) : null;

  // The attempt is counted BEFORE the password is checked (a claim the store arbitrates), so
  // however many arrive at once only the allowed number are judged; a lock answers 429 without
  // checking the password, so the right password sent during a lock costs nothing. A known
  // device is counted on its own: neither the account-wide nor any address's lock applies to it.
  const claim: AttemptClaim | undefined = device
    ? await guard?.claimDevice(userModel.db, String(device._id))
    : await guard?.claim(userModel.db, email, ip);
  if (claim?.kind === "locked") return { kind: "locked", seconds: claim.seconds };
  const counted = claim?.attempt;

  const valid = await verifyPassword(password, user?.get("passwordHash"));
  if (!user || !valid) {
    await counted?.failed();
    return { kind: "invalid" };
  }
  // The right password: the attempt is refunded, the counts and locks forgotten.
  await counted?.succeeded();
  if (user.get("disabled") === true) return { kind: "disabled" };
  if (device) {
    await deviceSucceeded(devices, device);
    return { kind: "ok", user, deviceToken: attempt.deviceToken as string };
  }
  return { kind: "ok", user, deviceToken: await createDeviceToken(devices, user._id) };
}
