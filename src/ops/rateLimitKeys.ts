/** Who a request is counted as: the client address, the caller's key, the key as stored. */
import { isIPv4, isIPv6 } from "node:net";
import type { Request } from "express";
import type { User } from "../core/types.js";
import { hashKey } from "./loginLockout.js";

/**
 * The address a request came from: Express's `req.ip` (so `trust proxy` decides whether
 * `X-Forwarded-For` counts), IPv4-mapped IPv6 as IPv4, other IPv6 addresses as their /64 (one
 * host usually owns a whole /64).
 */
export function clientIp(req: Pick<Request, "ip" | "socket">): string {
  const raw = (req.ip ?? req.socket?.remoteAddress ?? "").replace(/%.*$/, "");
  if (raw.startsWith("::ffff:") && isIPv4(raw.slice(7))) return raw.slice(7);
  if (!isIPv6(raw)) return raw || "unknown";
  const [head, tail = ""] = raw.split("::");
  const left = head ? head.split(":") : [];
  const right = raw.includes("::") && tail ? tail.split(":") : [];
  const groups = raw.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : raw.split(":");
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

/** The key a caller is counted under: `user:<id>`, else `ip:<address>`, else `anonymous`. */
export function callerKey(user: Pick<User, "id"> | undefined, ip?: string): string {
  if (user?.id) return `user:${user.id}`;
  return ip ? `ip:${ip}` : "anonymous";
}

/** Keys go to the store as they are when plain, else hashed (no odd bytes in a database). */
export function storeKey(key: string): string {
  return /^[\w.:@/-]{1,160}$/.test(key) ? key : `h_${hashKey(key)}`;
}
