/**
 * terreno-mcp: Express 5 + Mongoose models as a REST API and, opted in per model, as MCP
 * tools with the same permissions. The public API is listed here explicitly.
 *
 * Nothing here may import `better-auth` (an optional peer dependency): its exports live in the
 * `terreno-mcp/better-auth` subpath (src/auth/betterAuth.ts). test/auth/rootImport.test.ts checks.
 */
export { connectDatabase, type DatabaseOptions } from "./app/database.js";
export {
  type RunningServer,
  type StartOptions,
  TerrenoApp,
} from "./app/TerrenoApp.js";
export type {
  AuthProvider,
  CallerResolver,
  RequestHeaders,
} from "./auth/callerResolver.js";
export {
  DEFAULT_EXTERNAL_JWT_ALGORITHMS,
  type ExternalJwtProviderOptions,
  externalJwtProvider,
  IDENTITY_PROVIDER_UNAVAILABLE,
  scopesFromStandardClaims,
} from "./auth/externalJwt.js";
export {
  issueTokens,
  type JwtAuthOptions,
  signAccessToken,
  type TokenPair,
} from "./auth/jwt.js";
export {
  hashPassword,
  MAX_PASSWORD_BYTES,
  MIN_PASSWORD_LENGTH,
  verifyPassword,
} from "./auth/password.js";
export {
  type AccessTokenRecord,
  PERSONAL_TOKEN_PREFIX,
  type PersonalTokenInfo,
  type PersonalTokenOptions,
  type PersonalTokenScope,
  revokeUserPersonalTokens,
} from "./auth/personalTokens.js";
export {
  type RefreshTokenRecord,
  revokeUserSessions,
} from "./auth/sessions.js";
export {
  type AuthUserFields,
  authUserFields,
  authUserPlugin,
  toUser,
} from "./auth/userPlugin.js";
export type {
  ActionAnnotations,
  ActionConfig,
  CollectionActionConfig,
  CustomToolConfig,
  CustomToolPermissions,
  HandlerResult,
  InstanceActionConfig,
} from "./core/actionTypes.js";
export { defineAction } from "./core/actionTypes.js";
export type {
  CrudOptions,
  ModelRouterOptions,
  ResponseHandler,
} from "./core/crudOptions.js";
export {
  type BuiltInErrorCode,
  type CustomErrorCode,
  defineErrorCode,
  ERROR_CODES,
  ERROR_TABLE,
  type ErrorBody,
  type ErrorCode,
  type ErrorSpec,
  errorSpec,
  type FieldErrors,
  TerrenoError,
  toErrorBody,
} from "./core/errors.js";
export { consoleLogger, type Logger } from "./core/logger.js";
export type { ModelFieldName, ModelPath, ModelSort } from "./core/modelPaths.js";
export { CUSTOM_TOOL_MODEL } from "./core/operations/customTool.js";
export type { ListResult } from "./core/operations/list.js";
export {
  IsAdmin,
  IsAny,
  IsAuthenticated,
  IsAuthenticatedOrReadOnly,
  IsOwner,
  IsOwnerOrReadOnly,
  OwnerQueryFilter,
} from "./core/permissions.js";
export type {
  PromptArgs,
  PromptArguments,
  PromptCompletion,
  PromptConfig,
  PromptContext,
  PromptMessage,
  PromptRecords,
} from "./core/promptTypes.js";
export type { Resource } from "./core/resource.js";
export { MCP_SCOPES, READ_SCOPES, WRITE_SCOPES } from "./core/scopes.js";
export type {
  CrudHooks,
  CrudMethod,
  DocOf,
  MCPConfig,
  OperationObserver,
  PermissionMethod,
  Permissions,
  PlainObject,
  PopulatePath,
  RawDocOf,
  RequestContext,
  Surface,
  Transport,
  User,
  UserFields,
  WriteOutcome,
  WriteRecord,
} from "./core/types.js";
export type { SurfaceView } from "./core/viewTypes.js";
export {
  type CurrentWorkspace,
  DEFAULT_WORKSPACE_ROLES,
  WORKSPACE_HEADER,
  WorkspaceRole,
} from "./core/workspace.js";
export type {
  WorkspaceAccess,
  WorkspaceDirectory,
  WorkspaceMembership,
} from "./core/workspaceTypes.js";
export type { McpEndpointOptions } from "./mcp/options.js";
export type { McpOAuthOptions } from "./mcp/resourceMetadata.js";
export {
  buildOpenApiDocument,
  type MountedResource,
  type OpenApiObject,
  type OpenApiSource,
} from "./openapi/document.js";
export { openApiSource } from "./openapi/plugin.js";
export type { OpenApiOptions } from "./openapi/types.js";
export type { AuditEvent, AuditSink } from "./ops/audit.js";
export {
  AUDIT_QUERY_FIELDS,
  type AuditToMongoOptions,
  type AuditToMongoPlugin,
  auditToMongo,
} from "./ops/auditMongo.js";
export {
  type AuthRateLimitOptions,
  type CreateRateLimitOptions,
  createRateLimit,
  DEFAULT_RATE_LIMITS,
  type LoginLockoutOptions,
  type RateLimit,
  type RateLimitOptions,
  type RateLimitStore,
  type RateLimitWindow,
  type RedisClientLike,
} from "./ops/rateLimit.js";
export {
  ERROR_COUNTER_METRIC,
  HTTP_DURATION_METRIC,
  TELEMETRY_SCOPE,
  TOOL_DURATION_METRIC,
} from "./ops/telemetry.js";
export type { TerrenoAppOptions } from "./plugin/options.js";
export type {
  AppContext,
  OpenApiContribution,
  OpenApiHelpers,
  OpenApiJson,
  TerrenoPlugin,
} from "./plugin/types.js";
export { modelRouter } from "./rest/modelRouter.js";
export type { AppView, AppViews } from "./tools/appViews/appViews.js";
export type { ViewConfig } from "./tools/appViews/viewConfig.js";
export { appViewHashes } from "./tools/appViews/viewHtml.js";
export type { DiscoveryOptions } from "./tools/discovery/discoveryTools.js";
export type { ToolAnnotations, ToolDefinition } from "./tools/toolDefinitions.js";
export {
  createWorkspaces,
  type Workspaces,
  type WorkspacesOptions,
} from "./workspaces/directory.js";
export { membershipPlugin, workspacePlugin } from "./workspaces/models.js";
