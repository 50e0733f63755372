/**
 * The one password check behind `/auth/login` and the OAuth sign-in page. A client presenting a
 * valid device token for the account (deviceTokens.ts) is judged only by that device's own
 * failures; any other client by the app's lockout (src/ops/loginLockout.ts: per address, and per
 * account). A successful login from a client without one gives it a device token.
 */
import type { HydratedDocument } from "mongoose";
import type { AnyModel } from "../core/types.js";
import { type LoginGuard, retryAfterSeconds } from "../ops/loginLockout.js";
import {
  createDeviceToken,
  deviceFailed,
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

  if (device) {
    // A known device: neither the account-wide nor any address's lock applies to it.
    const now = Date.now();
    if (guard && device.lockedUntil && device.lockedUntil.getTime() > now) {
      return { kind: "locked", seconds: retryAfterSeconds(device.lockedUntil.getTime() - now) };
    }
    if (!(await verifyPassword(password, user?.get("passwordHash")))) {
      if (guard) await deviceFailed(devices, device, guard.settings);
      return { kind: "invalid" };
    }
    if (user?.get("disabled") === true) return { kind: "disabled" };
    await deviceSucceeded(devices, device);
    return {
      kind: "ok",
      user: user as HydratedDocument<unknown>,
      deviceToken: attempt.deviceToken as string,
    };
  }

  // A locked account answers 429 before its password is checked, and the check never
  // lengthens the lock, so the right password sent during a lock costs nothing.
  const wait = await guard?.lockedFor(email, ip);
  if (wait) return { kind: "locked", seconds: wait };
  const valid = await verifyPassword(password, user?.get("passwordHash"));
  if (!user || !valid) {
    await guard?.failed(email, ip);
    return { kind: "invalid" };
  }
  if (user.get("disabled") === true) return { kind: "disabled" };
  await guard?.succeeded(email, ip);
  return { kind: "ok", user, deviceToken: await createDeviceToken(devices, user._id) };
}
