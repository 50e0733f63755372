/** Signs users up through the real HTTP routes and returns their tokens. */
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
