/**
 * Invariants checked on every outcome of every case, whatever the case asserts itself:
 * password hashes never leave the server, the hidden note never reaches a tool surface, and
 * every failure carries the status ERROR_TABLE gives its code.
 */
import assert from "node:assert/strict";
import type { Driver } from "./drivers/types.js";
import { isFailure, type Outcome, statusOf } from "./outcome.js";
import { BCRYPT, HIDDEN_NOTE } from "./world.js";

function check(driver: Driver, outcome: Outcome): Outcome {
  const where = `${driver.name}: ${outcome.raw.slice(0, 500)}`;
  assert.doesNotMatch(outcome.raw, BCRYPT, `a password hash reached the client (${where})`);
  assert.ok(!outcome.raw.includes("passwordHash"), `passwordHash reached the client (${where})`);
  if (driver.surface === "tools") {
    assert.ok(!outcome.raw.includes(HIDDEN_NOTE), `the hidden note reached a tool (${where})`);
  }
  if (isFailure(outcome)) assert.equal(outcome.status, statusOf(outcome.code), where);
  return outcome;
}

export function watched(driver: Driver): Driver {
  return {
    name: driver.name,
    surface: driver.surface,
    list: async (...args) => check(driver, await driver.list(...args)),
    read: async (...args) => check(driver, await driver.read(...args)),
    create: async (...args) => check(driver, await driver.create(...args)),
    update: async (...args) => check(driver, await driver.update(...args)),
    delete: async (...args) => check(driver, await driver.delete(...args)),
    action: async (...args) => check(driver, await driver.action(...args)),
    tool: async (...args) => check(driver, await driver.tool(...args)),
    close: () => driver.close(),
  };
}
