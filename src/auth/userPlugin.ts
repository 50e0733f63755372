/**
 * A Mongoose plugin adding the fields the built-in auth needs to a user schema. The
 * password hash is `select: false`, so it is hidden on every surface by construction.
 * Its middleware ends every grant of a user (refresh tokens, device tokens, personal access
 * tokens, OAuth grants: grantRevocation.ts) whenever the password hash changes or the user
 * becomes disabled, through whatever route or script makes the change. It also keeps the email's
 * confusable skeleton in a unique field, so no two accounts have lookalike emails.
 */
import type { Document, Model, Query, Schema } from "mongoose";
import type { User } from "../core/types.js";
import { emailSkeleton } from "./emailAddress.js";
import { revokeUserGrants } from "./grantRevocation.js";

/** Set on a document in `pre("save")` when its save must revoke the user's sessions. */
const REVOKE_ON_SAVE = "terrenoRevokeSessions";
/** Query → the users it may change, with the state before the update. */
const pendingQueries = new WeakMap<object, SessionState[]>();

interface SessionState {
  _id: unknown;
  passwordHash?: unknown;
  disabled?: unknown;
}

const QUERY_UPDATES = [
  "updateOne",
  "updateMany",
  "findOneAndUpdate",
  "replaceOne",
  "findOneAndReplace",
] as const;
const SINGLE_DOCUMENT = new Set([
  "updateOne",
  "findOneAndUpdate",
  "replaceOne",
  "findOneAndReplace",
]);

/** Whether an update (operators, replacement or pipeline) may touch `passwordHash` or `disabled`. */
function mayRevoke(update: unknown, isReplacement: boolean): boolean {
  if (isReplacement || Array.isArray(update)) return true;
  if (typeof update !== "object" || update === null) return false;
  const touches = (fields: object) => "passwordHash" in fields || "disabled" in fields;
  if (touches(update)) return true;
  return Object.entries(update).some(
    ([key, value]) =>
      key.startsWith("$") &&
      typeof value === "object" &&
      value !== null &&
      (touches(value) ||
        // $rename: {old: "passwordHash"}
        Object.values(value).some((v) => v === "passwordHash" || v === "disabled")),
  );
}

function addSessionRevocation(schema: Schema): void {
  schema.pre("save", function (this: Document) {
    const revoke =
      !this.isNew &&
      (this.isModified("passwordHash") ||
        (this.isModified("disabled") && this.get("disabled") === true));
    this.$locals[REVOKE_ON_SAVE] = revoke;
  });
  schema.post("save", async function (this: Document) {
    if (this.$locals[REVOKE_ON_SAVE] !== true) return;
    this.$locals[REVOKE_ON_SAVE] = false;
    await revokeUserGrants(String(this._id), (this.constructor as Model<unknown>).db);
  });

  for (const op of QUERY_UPDATES) {
    schema.pre(
      op,
      { document: false, query: true },
      async function (this: Query<unknown, unknown>) {
        const isReplacement = op === "replaceOne" || op === "findOneAndReplace";
        if (!mayRevoke(this.getUpdate(), isReplacement)) return;
        let find = this.model
          .find(this.getFilter())
          .select("_id +passwordHash disabled")
          .lean<SessionState[]>();
        const sort = this.getOptions().sort;
        if (sort) find = find.sort(sort);
        if (SINGLE_DOCUMENT.has(op)) find = find.limit(1);
        pendingQueries.set(this, await find.exec());
      },
    );
    schema.post(
      op,
      { document: false, query: true },
      async function (this: Query<unknown, unknown>) {
        const before = pendingQueries.get(this);
        pendingQueries.delete(this);
        if (!before || before.length === 0) return;
        const after = await this.model
          .find({ _id: { $in: before.map((state) => state._id) } })
          .select("_id +passwordHash disabled")
          .lean<SessionState[]>()
          .exec();
        const previous = new Map(before.map((state) => [String(state._id), state]));
        const revoke = after
          .filter((state) => {
            const old = previous.get(String(state._id));
            return (
              old !== undefined &&
              (old.passwordHash !== state.passwordHash ||
                (state.disabled === true && old.disabled !== true))
            );
          })
          .map((state) => String(state._id));
        if (revoke.length > 0) await revokeUserGrants(revoke, this.model.db);
      },
    );
  }
}

/**
 * The fields `authUserPlugin` adds, as a schema definition. A plugin cannot change a schema's
 * inferred type, so spread them into the definition to type them too (then `queryFields:
 * ["email"]` compiles): `new Schema({...authUserFields, name: String}).plugin(authUserPlugin)`.
 */
export const authUserFields = {
  email: {
    type: String,
    required: true,
    unique: true,
    lowercase: true,
    trim: true,
    maxlength: 254,
  },
  passwordHash: { type: String, select: false },
  admin: { type: Boolean, default: false },
  disabled: { type: Boolean, default: false },
} as const;

/** The user fields `authUserPlugin` adds, as the app's documents hold them. */
export interface AuthUserFields {
  email: string;
  passwordHash?: string | null;
  admin: boolean;
  disabled: boolean;
}

/** The field holding the email's confusable skeleton (emailAddress.ts), hidden everywhere. */
export const EMAIL_SKELETON = "emailSkeleton";

/**
 * The email's skeleton, set whenever the email is set (a new user, a changed email, by save or
 * by an update query), under a unique index: a lookalike of an existing account's email fails
 * its insert with a duplicate key, atomically under races (FerretDB too: unique inserts are).
 * Sparse, so users stored before the field existed (without one) still save;
 * emailSkeletonBackfill.ts gives them theirs.
 */
function addEmailSkeleton(schema: Schema): void {
  schema.add({ [EMAIL_SKELETON]: { type: String, select: false } });
  schema.index({ [EMAIL_SKELETON]: 1 }, { unique: true, sparse: true });
  schema.pre("validate", function (this: Document) {
    if (!this.isNew && !this.isModified("email")) return;
    const email: unknown = this.get("email");
    // Never null: a sparse index still holds nulls, and two would collide.
    this.set(EMAIL_SKELETON, typeof email === "string" ? emailSkeleton(email) : undefined);
  });
  for (const op of QUERY_UPDATES) {
    schema.pre(op, { document: false, query: true }, function (this: Query<unknown, unknown>) {
      const update = this.getUpdate() as Record<string, unknown> | null;
      if (!update || Array.isArray(update)) return;
      const set = update.$set as Record<string, unknown> | undefined;
      const email = update.email ?? set?.email;
      if (typeof email !== "string") return;
      if (op === "replaceOne" || op === "findOneAndReplace") {
        this.setUpdate({ ...update, [EMAIL_SKELETON]: emailSkeleton(email) });
      } else {
        this.set(EMAIL_SKELETON, emailSkeleton(email));
      }
    });
  }
}

/**
 * FerretDB v1 refuses `findAndModify` with a projection, so code there selects
 * `+passwordHash` to send none. A second hidden field would turn that into a projection
 * excluding it: whoever opts into the password hash gets the skeleton too, and still none.
 */
function keepProjectionFreeWhenHashSelected(schema: Schema): void {
  for (const op of ["findOneAndUpdate", "findOneAndReplace", "findOneAndDelete"] as const) {
    schema.pre(op, function (this: Query<unknown, unknown>) {
      const fields = this.projection() as Record<string, unknown> | null | undefined;
      if (fields && "+passwordHash" in fields) this.select(`+${EMAIL_SKELETON}`);
    });
  }
}

export function authUserPlugin(schema: Schema): void {
  schema.add(authUserFields);
  addSessionRevocation(schema);
  addEmailSkeleton(schema);
  keepProjectionFreeWhenHashSelected(schema);
}

interface UserDocumentLike {
  _id: unknown;
  toObject?: (options?: object) => Record<string, unknown>;
}

/** The caller object hooks and permissions receive: the user's fields, with `id` as a string. */
export function toUser(doc: UserDocumentLike): User {
  const fields =
    typeof doc.toObject === "function" ? doc.toObject({ versionKey: false }) : { ...doc };
  delete fields.passwordHash;
  delete fields[EMAIL_SKELETON];
  // Reserved for the credential (src/core/scopes.ts): a document field never grants or limits.
  delete fields.scopes;
  delete fields.tokenId;
  delete fields.authMethod;
  delete fields.boundWorkspaceId;
  return { ...fields, _id: doc._id, id: String(doc._id) };
}
