/**
 * terreno-mcp: Express 5 + Mongoose models as a REST API and, opted in per model, as MCP
 * tools with the same permissions. The public API is listed here explicitly.
 */
export { connectDatabase, type DatabaseOptions } from "./app/database.js";
export {
  defaultPathFor,
  type RunningServer,
  type StartOptions,
  TerrenoApp,
} from "./app/TerrenoApp.js";
export type {
  AppContext,
  McpEndpointOptions,
  TerrenoAppOptions,
  TerrenoPlugin,
} from "./app/types.js";
export { type BetterAuthPluginOptions, betterAuthPlugin } from "./auth/betterAuthPlugin.js";
export {
  type BetterAuthInstance,
  type BetterAuthProviderOptions,
  betterAuthProvider,
} from "./auth/betterAuthProvider.js";
export {
  type AuthProvider,
  type CallerResolver,
  createCallerResolver,
  type RequestHeaders,
} from "./auth/callerResolver.js";
export { issueTokens, type JwtAuthOptions, jwtProvider, type TokenPair } from "./auth/jwt.js";
export { hashPassword, verifyPassword } from "./auth/password.js";
export { authUserPlugin, toUser } from "./auth/userPlugin.js";
export {
  ERROR_CODES,
  type ErrorBody,
  type ErrorCode,
  type FieldErrors,
  HTTP_STATUS_BY_CODE,
  TerrenoError,
  toErrorBody,
} from "./core/errors.js";
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
  CrudHooks,
  CrudMethod,
  CrudOptions,
  CrudOptions as ModelRouterOptions,
  MCPConfig,
  PermissionMethod,
  Permissions,
  PlainObject,
  PopulatePath,
  RequestContext,
  ResponseHandler,
  Transport,
  User,
} from "./core/types.js";
export { modelRouter } from "./rest/modelRouter.js";
