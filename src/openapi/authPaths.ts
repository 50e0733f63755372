/**
 * The JWT routes (`/auth/...` by default): signup, login, refresh, logout, password change and
 * `me`, with the TokenPair and signed-in-user schemas. Signup, login and refresh are public
 * (`security: []`); the rest take the caller's bearer token.
 */

import { MAX_PASSWORD_BYTES, MIN_PASSWORD_LENGTH } from "../auth/password.js";
import { describeModel } from "../schema/describeModel.js";
import { createHiddenFields } from "../schema/hiddenFields.js";
import { outputSchema } from "../schema/outputSchema.js";
import type { JsonSchema } from "../schema/types.js";
import { rateLimitStatuses } from "./errorResponses.js";
import { componentName, dataEnvelope, json, jsonBody, ref } from "./fragments.js";
import { type OperationSpec, operation } from "./operation.js";
import { personalTokenOperations } from "./personalTokenPaths.js";
import type { DocumentedAuth, OpenApiObject, OpenApiSource } from "./types.js";

/** The password's schema: the limits src/auth/password.ts enforces. */
function passwordSchema(): JsonSchema {
  return {
    type: "string",
    minLength: MIN_PASSWORD_LENGTH,
    description: `At least ${MIN_PASSWORD_LENGTH} characters, at most ${MAX_PASSWORD_BYTES} bytes in UTF-8.`,
  };
}

function credentialsSchema(extra: readonly string[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    email: { type: "string", format: "email", maxLength: 254 },
    password: passwordSchema(),
  };
  for (const field of extra) properties[field] = { type: "string" };
  return {
    type: "object",
    properties,
    required: ["email", "password"],
    additionalProperties: false,
  };
}

export function authOperations(
  auth: DocumentedAuth,
  source: OpenApiSource,
  paths: OpenApiObject,
  schemas: OpenApiObject,
): void {
  const tags = ["Auth"];
  const limited = rateLimitStatuses(source);
  const tokens = json(dataEnvelope(ref("TokenPair")), "A new session's tokens.");
  schemas.TokenPair = {
    type: "object",
    properties: {
      token: { type: "string", description: "The access token (JWT): `Authorization: Bearer`." },
      refreshToken: { type: "string", description: "Single use: spend it at refresh_token." },
      userId: { type: "string" },
    },
    required: ["token", "refreshToken", "userId"],
  };
  const userSchema = `${componentName(auth.userModel.modelName)}Me`;
  const description = describeModel(auth.userModel);
  schemas[userSchema] = outputSchema(description, {
    hidden: createHiddenFields([], description),
  });
  // All but `me` are one POST each under the auth path, tagged alike.
  const post = (route: string, spec: Omit<OperationSpec, "tags">) => {
    paths[`${auth.path}/${route}`] = { post: operation({ tags, ...spec }) };
  };
  post("signup", {
    operationId: "signup",
    summary: "Sign up",
    public: true,
    requestBody: jsonBody(credentialsSchema(auth.signupFields)),
    responses: { "201": tokens },
    errors: [400, 409, ...limited],
  });
  post("login", {
    operationId: "login",
    summary: "Log in",
    public: true,
    requestBody: jsonBody(credentialsSchema([])),
    responses: { "200": tokens },
    errors: [400, 401, ...limited],
  });
  post("refresh_token", {
    operationId: "refreshToken",
    summary: "Exchange a refresh token for new tokens",
    public: true,
    requestBody: jsonBody({
      type: "object",
      properties: { refreshToken: { type: "string" } },
      required: ["refreshToken"],
    }),
    responses: { "200": tokens },
    errors: [400, 401, ...limited],
  });
  post("logout", {
    operationId: "logout",
    summary: "Sign out one session (with refreshToken) or all of the caller's sessions",
    requestBody: jsonBody(
      {
        type: "object",
        properties: { refreshToken: { type: "string" } },
        additionalProperties: false,
      },
      false,
    ),
    responses: { "204": { description: "Signed out." } },
    errors: [400, 401, 403, ...limited],
  });
  post("password", {
    operationId: "changePassword",
    summary: "Change the password, revoke every session and start a new one",
    requestBody: jsonBody({
      type: "object",
      properties: { currentPassword: { type: "string" }, newPassword: passwordSchema() },
      required: ["currentPassword", "newPassword"],
      additionalProperties: false,
    }),
    responses: { "200": tokens },
    errors: [400, 401, 403, ...limited],
  });
  paths[`${auth.path}/me`] = {
    get: operation({
      tags,
      operationId: "me",
      summary: "The signed-in user",
      responses: {
        "200": json(dataEnvelope(ref(userSchema)), "The caller's user document."),
      },
      errors: [401],
    }),
  };
  if (auth.personalTokens)
    personalTokenOperations(auth, auth.personalTokens, source, paths, schemas);
}
