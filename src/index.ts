/**
 * terreno-mcp: Express 5 + Mongoose models as a REST API and, opted in per model, as MCP
 * tools with the same permissions. The public API is listed here explicitly.
 *
 * Nothing here may import `better-auth` (an optional peer dependency): its exports live in the
 * `terreno-mcp/better-auth` subpath (src/auth/betterAuth.ts). test/auth/rootImport.test.ts checks.
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
  HTTP_STATUS_BY_CODE,
  TerrenoError,
  toErrorBody,
} from "./core/errors.js";
export { consoleLogger, type Logger } from "./core/logger.js";
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
export type { Resource } from "./core/resource.js";
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
export type { Surface, SurfaceView } from "./core/view.js";
export { modelRouter } from "./rest/modelRouter.js";
export type { ToolAnnotations, ToolDefinition } from "./tools/toolDefinitions.js";
