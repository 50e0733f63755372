/** What `npm run example` prints once it is listening: where everything is and a first step. */

export interface BannerInfo {
  url: string;
  database: string;
  llm: string;
  /** Whether the web page is served at `/`. */
  page: boolean;
  /** Time spent in main() (database start, app build, listen). */
  startedInMs: number;
  /** Time since the process started (includes Node, tsx and module loading). */
  uptimeMs: number;
  /** Access-token lifetime in seconds. */
  tokenSeconds: number;
  /** `ADMIN_EMAIL`, when set. */
  adminEmail?: string;
  warnings: string[];
}

function duration(seconds: number): string {
  if (seconds % 86400 === 0) return `${seconds / 86400} day(s)`;
  if (seconds % 3600 === 0) return `${seconds / 3600} hour(s)`;
  if (seconds % 60 === 0) return `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

export function banner(info: BannerInfo): string {
  const { url } = info;
  const signup =
    `curl -s ${url}/auth/signup -H 'Content-Type: application/json' \\\n` +
    `      -d '{"email":"you@example.com","password":"correct horse battery","name":"You"}'`;
  return [
    "",
    `terreno-mcp example ready in ${info.uptimeMs} ms (${info.startedInMs} ms after loading)`,
    "",
    ...(info.page
      ? [`  Page      ${url}/         sign up and chat; writes wait for your approval`]
      : []),
    `  REST      ${url}          /todos, /foods, /users (admins), /auth/signup, /auth/login, /auth/me`,
    `  MCP       ${url}/mcp      Streamable HTTP; clients sign in through the browser (OAuth):`,
    `            claude mcp add --transport http example ${url}/mcp`,
    "            or send Authorization: Bearer <token> (a JWT below, or a tmcp_ token from POST /auth/tokens)",
    `  Chat      POST ${url}/chat  useChat's UI message stream; GET /chat/info names the model`,
    `            model: ${info.llm}`,
    `  API docs  ${url}/docs     OpenAPI 3.1 at ${url}/openapi.json`,
    `  Database  ${info.database}`,
    `  Admin     ${
      info.adminEmail
        ? `${info.adminEmail} (ADMIN_EMAIL) becomes an admin at signup or login: /users, users_list, users_read`
        : "none; set ADMIN_EMAIL=you@example.com to make that user an admin (/users, users_*)"
    }`,
    "",
    "  Get a token (POST /auth/login with the same body later); it is data.token and lasts",
    `  ${duration(info.tokenSeconds)} (JWT_EXPIRES_IN=86400 for a day, handy in MCP client configs):`,
    `    ${signup}`,
    "",
    "  Try it:  npm run example:demo       Stop: Ctrl-C",
    ...info.warnings.map((warning) => `\n  Warning: ${warning}`),
    "",
  ].join("\n");
}
