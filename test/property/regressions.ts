/**
 * Shrunk failures of the generated-schema property, kept as regression cases: each runs
 * first on every run (fast-check `examples`), before the generated ones. Add a case as
 * fast-check printed it, with the bug it found.
 */
import type { SchemaSpec } from "./schemaSpec.js";
import type { DocCase, ValueOptions } from "./values.js";

export interface Regression {
  /** What it found, and where it was fixed. */
  bug: string;
  spec: SchemaSpec;
  /** The documents; refs take the run's seeded ids from `options.refIds`. */
  docs(options: ValueOptions): DocCase[];
}

const noEdit: DocCase["createEdit"] = { site: 0, action: { set: null } };

export const REGRESSIONS: Regression[] = [
  {
    bug: "A read with no writable field ({} on REST, {id} on the tools) was refused back by update: the update schemas had minProperties 1 (2 on the tools), though {} is a merge patch that changes nothing.",
    spec: { fields: { f0: { kind: "ref" } } },
    docs: (options) => [
      { body: {}, patch: { f0: options.refIds[0] }, createEdit: noEdit, updateEdit: noEdit },
    ],
  },
  {
    bug: "Not a server bug: Mongoose's minimize stores no empty Mixed object ({} reads back absent), which the reference must allow for (values.ts asRead); a Map keeps its {}.",
    spec: {
      fields: {
        f0: { kind: "subdocs", fields: { f0: { kind: "mixed" }, f1: { kind: "boolean" } } },
        f1: { kind: "map", of: "number" },
      },
    },
    docs: () => [
      {
        body: { f1: {} },
        patch: { f0: { items: [{ new: { f0: {} } }] } },
        createEdit: noEdit,
        updateEdit: noEdit,
      },
    ],
  },
  {
    bug: "Written by hand (issue #22): six emoji are 6 code points but 12 UTF-16 units; JSON Schema's maxLength counted the one, Mongoose's maxlength the other, so the schema accepted what the server refused. Lengths now count UTF-16 units in the validator and the descriptions.",
    spec: { fields: { f0: { kind: "string", maxlength: 8 } } },
    docs: () => [
      {
        body: { f0: "\u{1F95B}" },
        patch: { f0: "a\u{1F95B}b" },
        createEdit: { site: 0, action: { set: "\u{1F95B}".repeat(6) } },
        updateEdit: { site: 0, action: { set: "\u{1F95B}".repeat(6) } },
      },
    ],
  },
  {
    bug: "Written by hand (issue #22): a leap second (2031-06-30T23:59:60Z) is an RFC 3339 date-time the schema accepts and Mongoose could not cast (400); it is now stored as the next second. Only 23:59 UTC has one.",
    spec: { fields: { f0: { kind: "date" } } },
    docs: () => [
      {
        body: { f0: "2031-06-30T23:59:60Z" },
        patch: { f0: "2031-12-31T23:59:60Z" },
        createEdit: { site: 0, action: { set: "2031-06-30T10:00:60Z" } },
        updateEdit: { site: 0, action: { set: "2031-12-31T23:59:60Z" } },
      },
    ],
  },
];
