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

let counter = 0;

export async function signUp(app: Express, name = "user"): Promise<TestUser> {
  counter += 1;
  const email = `${name}${counter}-${Date.now()}@example.com`;
  const res = await request(app)
    .post("/auth/signup")
    .send({ email, password: "correct horse battery", name });
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
