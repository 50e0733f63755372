/** Signs users up through the real HTTP routes and returns their tokens. */
import { before } from "node:test";
import type { Express } from "express";
import request from "supertest";

export interface TestUser {
  token: string;
  refreshToken: string;
  userId: string;
  email: string;
}

/** The password signUp gives every user. */
export const PASSWORD = "correct horse battery";

let counter = 0;

export async function signUp(app: Express, name = "user"): Promise<TestUser> {
  counter += 1;
  const email = `${name}${counter}-${Date.now()}@example.com`;
  const res = await request(app).post("/auth/signup").send({ email, password: PASSWORD, name });
  if (res.status !== 201)
    throw new Error(`signup failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...res.body.data, email };
}

export const bearer = (user: TestUser) => ({ Authorization: `Bearer ${user.token}` });

/**
 * The named users, signed up on `app` in order before the enclosing suite's tests
 * (`const [alice, bob] = signedUp(app, "alice", "bob")`). Each object is filled in place then,
 * so read it inside a test or hook, not while the suite is being built.
 */
export function signedUp<const N extends readonly string[]>(
  app: Express,
  ...names: N
): { [K in keyof N]: TestUser } {
  const users = names.map(() => ({}) as TestUser);
  before(async () => {
    for (const [i, name] of names.entries()) Object.assign(users[i], await signUp(app, name));
  });
  return users as { [K in keyof N]: TestUser };
}

/**
 * POST /auth/login as from `ip` (sent as X-Forwarded-For: the app must trust proxies), with a
 * device token or a cookie when given.
 */
export function loginFrom(
  app: Express,
  ip: string,
  email: string,
  password: string,
  { deviceToken, cookie }: { deviceToken?: string; cookie?: string } = {},
) {
  const req = request(app).post("/auth/login").set("X-Forwarded-For", ip);
  if (cookie) req.set("Cookie", cookie);
  return req.send(deviceToken ? { email, password, deviceToken } : { email, password });
}
