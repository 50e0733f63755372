/** Assertions on normalized outcomes, written once for every surface. */
import assert from "node:assert/strict";
import {
  type Absent,
  type Failure,
  isFailure,
  type Ok,
  type Outcome,
  statusOf,
} from "./outcome.js";

const SUCCESS_STATUS = { list: 200, read: 200, create: 201, update: 200, delete: 204 } as const;

export type SuccessMethod = keyof typeof SUCCESS_STATUS;

const show = (outcome: Outcome) => JSON.stringify(outcome).slice(0, 800);

/** A success; on REST also the method's documented status (201 for create, 204 for delete). */
export function expectOk(outcome: Outcome, method: SuccessMethod): Ok {
  assert.equal(outcome.ok, true, `expected success, got ${show(outcome)}`);
  const ok = outcome as Ok;
  if (ok.httpStatus !== undefined) assert.equal(ok.httpStatus, SUCCESS_STATUS[method], show(ok));
  return ok;
}

export interface ExpectedError {
  code: string;
  /** Field names the error must name (in `fields`). */
  fields?: string[];
}

/** A failure with this code and the status ERROR_TABLE gives it, naming the given fields. */
export function expectError(outcome: Outcome, expected: ExpectedError): Failure {
  assert.ok(isFailure(outcome), `expected ${expected.code}, got ${show(outcome)}`);
  assert.equal(outcome.code, expected.code, show(outcome));
  assert.equal(outcome.status, statusOf(expected.code), `status of ${expected.code}`);
  for (const field of expected.fields ?? []) {
    assert.ok(
      outcome.fields && namesField(outcome.fields, field),
      `${expected.code} should name ${field}: ${show(outcome)}`,
    );
  }
  return outcome;
}

/** `fields` names `field`: as a key, or a dotted key ending (`filter.x`) or starting (`sort.x`) with it. */
function namesField(fields: Record<string, string>, field: string): boolean {
  return Object.keys(fields).some(
    (key) => key === field || key.endsWith(`.${field}`) || key.startsWith(`${field}.`),
  );
}

/** The method has no tool (tool surfaces only). */
export function expectAbsent(outcome: Outcome): Absent {
  assert.ok(!outcome.ok && "absent" in outcome, `expected no tool, got ${show(outcome)}`);
  return outcome as Absent;
}

/** The list's documents' values at `key`, in order. */
export function pluck(outcome: Ok, key: string): unknown[] {
  assert.ok(Array.isArray(outcome.data), `expected a list: ${show(outcome)}`);
  return (outcome.data as Array<Record<string, unknown>>).map((doc) => doc[key]);
}

export function doc(outcome: Ok): Record<string, unknown> {
  assert.equal(typeof outcome.data, "object", show(outcome));
  return outcome.data as Record<string, unknown>;
}

/** No needle appears anywhere in what the client received. */
export function assertNotReceived(outcome: Outcome, ...needles: Array<string | RegExp>): void {
  for (const needle of needles) {
    const found =
      typeof needle === "string" ? outcome.raw.includes(needle) : needle.test(outcome.raw);
    assert.ok(!found, `${String(needle)} reached the client: ${outcome.raw.slice(0, 800)}`);
  }
}
