/** A server fault in a hook is `internal` (500) everywhere, and its text never leaves the server. */
import { mock } from "node:test";
import { assertNotReceived, expectError, expectOk } from "../expect.js";
import { PLAIN_SECRET, SECRET } from "../world.js";
import type { ContractCase } from "./types.js";

const group = "internal errors";

/** The fault is logged on purpose; keep the test output readable. */
async function quietly<T>(act: () => Promise<T>): Promise<T> {
  const error = mock.method(console, "error", () => {});
  try {
    return await act();
  } finally {
    error.mock.restore();
  }
}

export const internalErrorCases: ContractCase[] = [
  {
    group,
    name: 'TerrenoError("internal", "secret-123") from a hook never reveals its text',
    smoke: true,
    async run({ driver }) {
      const outcome = await quietly(() => driver.create("alice", "gadgets", { name: "boom" }));
      assertNotReceived(expectError(outcome, { code: "internal" }), SECRET);
      // The surface still serves afterwards.
      expectOk(await driver.list("alice", "gadgets"), "list");
    },
  },
  {
    group,
    name: "a plain Error from a hook is internal, its message withheld",
    async run({ driver }) {
      const outcome = await quietly(() => driver.create("alice", "gadgets", { name: "plain" }));
      assertNotReceived(expectError(outcome, { code: "internal" }), PLAIN_SECRET);
    },
  },
];
