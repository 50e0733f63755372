/**
 * The authorization code flow over plain HTTP (fetch with a session cookie), as a browser walks
 * it: dynamic client registration, then sign-in and consent on the server's own HTML forms.
 * Free of app models, so both the OAuth tests and the interop suite (which drives the official
 * conformance runner's authorization URL through it) can import it.
 */

/** A redirect URI nothing listens on: the tests read the code from the `Location` header. */
export const CALLBACK = "http://127.0.0.1:9/callback";

/** Registers a public client the way MCP clients do (RFC 7591, no authentication). */
export async function registerClient(base: string, redirectUri = CALLBACK): Promise<string> {
  const response = await fetch(`${base}/oauth/oauth2/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "HTTP test client",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
  const body = (await response.json()) as { client_id?: string };
  if (response.status !== 201 && response.status !== 200) {
    throw new Error(`register: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.client_id as string;
}

/** A cookie jar of one: the authorization server's session cookie. */
export class Cookies {
  private readonly jar = new Map<string, string>();
  take(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair.indexOf("=");
      this.jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }
  get header(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

export interface FlowStep {
  status: number;
  location?: string;
  body: string;
}

/** GET or POST without following redirects, carrying the session cookie. */
export async function step(
  cookies: Cookies,
  url: string,
  form?: Record<string, string>,
): Promise<FlowStep> {
  const response = await fetch(url, {
    method: form ? "POST" : "GET",
    redirect: "manual",
    headers: {
      cookie: cookies.header,
      // As a browser posts the server's own forms: they refuse a post with no Origin.
      ...(form
        ? { "content-type": "application/x-www-form-urlencoded", origin: new URL(url).origin }
        : {}),
    },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  cookies.take(response);
  const body = await response.text();
  // Better Auth answers a fetch (as undici's `sec-fetch-mode: cors` marks it) with the
  // redirect as JSON rather than a 302; a browser navigating gets the 302.
  let location = response.headers.get("location") ?? undefined;
  if (!location && response.headers.get("content-type")?.includes("application/json")) {
    const json = JSON.parse(body) as { redirect?: boolean; url?: string };
    if (json.redirect === true && typeof json.url === "string") location = json.url;
  }
  return {
    status: response.status,
    location: location ? new URL(location, url).href : undefined,
    body,
  };
}

export interface SignInOptions {
  email: string;
  password: string;
  /** The consent page's button. Default "allow". */
  decision?: "allow" | "allow-read" | "deny";
  /** The browser's cookies, kept across flows (a fresh jar by default). */
  cookies?: Cookies;
  /** Sees the consent page's HTML before the decision is posted. */
  onConsentPage?: (html: string) => void;
}

/**
 * Opens `authorizationUrl` (the server's /oauth2/authorize with the client's query), then signs
 * in and answers consent when the server sends the person there. Returns the first step that
 * leaves the server's own pages: the redirect to the client, or a refusal shown by the server.
 */
export async function signInAndConsent(
  authorizationUrl: string,
  options: SignInOptions,
): Promise<FlowStep> {
  const base = new URL(authorizationUrl).origin;
  const cookies = options.cookies ?? new Cookies();
  let current = await step(cookies, authorizationUrl);
  for (let hops = 0; hops < 6 && current.location?.startsWith(base); hops++) {
    const next = new URL(current.location);
    if (next.pathname === "/oauth/login") {
      current = await step(cookies, next.href);
      current = await step(cookies, `${base}/oauth/login`, {
        email: options.email,
        password: options.password,
        oauth_query: next.search.slice(1),
      });
    } else if (next.pathname === "/oauth/consent") {
      current = await step(cookies, next.href);
      if (current.status !== 200) return current;
      options.onConsentPage?.(current.body);
      current = await step(cookies, `${base}/oauth/consent`, {
        decision: options.decision ?? "allow",
        oauth_query: next.search.slice(1),
      });
    } else {
      return step(cookies, next.href);
    }
  }
  return current;
}
