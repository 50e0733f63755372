/**
 * Compile-time paths of a model's documents, so `queryFields`, `sort`, `excludeFields`,
 * `readOnlyFields` and `populatePaths` naming a field the model lacks fail to compile.
 * Types only; the run-time checks stay in the views (view.ts).
 */
import type { Types } from "mongoose";

/**
 * Dotted paths are followed this many levels deep (`a.b.c.d.e`); deeper ones are still
 * accepted at run time but not offered here. The bound keeps compile time flat for big
 * schemas and recursive ones.
 */
type Levels = [never, 0, 1, 2, 3, 4];
type MaxDepth = 5;

/** Values with no sub-paths of their own. */
type Leaf =
  | string
  | number
  | boolean
  | bigint
  | symbol
  | null
  | undefined
  | Date
  | RegExp
  | Uint8Array
  | Types.ObjectId
  | Types.Decimal128
  | ((...args: never[]) => unknown);

type IsAny<T> = 0 extends 1 & T ? true : false;

/** What a path's value holds per item: an array (or subdocument array) contributes its items. */
type ItemOf<T> =
  T extends Types.DocumentArray<infer Raw, infer _Hydrated>
    ? Raw
    : T extends readonly (infer Item)[]
      ? Item
      : T;

type ValueAt<T, K extends keyof T> = ItemOf<NonNullable<T[K]>>;

type DottedPaths<T, D extends number> = [D] extends [never]
  ? never
  : T extends Leaf
    ? never
    : T extends object
      ? {
          [K in keyof T & string]-?:
            | K
            | (ValueAt<T, K> extends infer V
                ? V extends ReadonlyMap<string, unknown>
                  ? `${K}.${string}` // a Map's keys are the app's
                  : V extends Leaf
                    ? never
                    : `${K}.${DottedPaths<V, Levels[D]>}`
                : never);
        }[keyof T & string]
      : never;

type FieldNamesOf<T, D extends number> = [D] extends [never]
  ? never
  : T extends Leaf | ReadonlyMap<string, unknown>
    ? never
    : T extends object
      ? { [K in keyof T & string]-?: K | FieldNamesOf<ValueAt<T, K>, Levels[D]> }[keyof T & string]
      : never;

/**
 * A path of the raw document type `T`: a top-level field (`title`), a nested one
 * (`reminder.at`), a field of an array's subdocuments (`checklist.text`), or a key under a
 * Map (`meta.anything`); `_id` always. A model with no static type (`Model<any>`) gives
 * `string`.
 */
export type ModelPath<T> =
  IsAny<T> extends true ? string : unknown extends T ? string : "_id" | DottedPaths<T, MaxDepth>;

/** A field name found at any depth of `T`: what a bare name in `excludeFields` hides. */
export type ModelFieldName<T> =
  IsAny<T> extends true ? string : unknown extends T ? string : FieldNamesOf<T, MaxDepth>;

/**
 * A default sort: `"title"`, `"-createdAt"`, or several comma-separated (`"-priority,title"`:
 * the first is checked; the object form `{priority: -1, title: 1}` checks every key).
 */
export type ModelSort<T> =
  | `${"" | "-"}${ModelPath<T>}`
  | `${"" | "-"}${ModelPath<T>},${string}`
  | Partial<Record<ModelPath<T>, 1 | -1>>;
