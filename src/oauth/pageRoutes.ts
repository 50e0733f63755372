/**
 * The sign-in and consent pages the OAuth provider sends a person to (`loginPage`,
 * `consentPage`). Sign-in checks the app's own email and password (bcrypt, with the app's login
 * lockout), then hands over to the session bridge; consent posts the person's choice to the
 * provider's `/oauth2/consent`. Both forward to wherever the provider says next, by a 303.
 */

import express, { type Request, type Response, type Router } from "express";
import { deviceCookie, presentedDeviceToken } from "../auth/deviceTokens.js";
import { normalizeEmail } from "../auth/emailAddress.js";
import { judgeLogin } from "../auth/loginJudge.js";
import { noStore } from "../auth/routeHelpers.js";
import type { SignupRules } from "../auth/signup.js";
import { MCP_READ_SCOPE, MCP_WRITE_SCOPE } from "../core/scopes.js";
import type { AnyModel } from "../core/types.js";
import type { LoginGuard } from "../ops/loginLockout.js";
import { clientIp } from "../ops/rateLimit.js";
import type { OAuthInstance } from "./authInstance.js";
import { clientViewOf } from "./clientView.js";
import { field, queryOf } from "./formFields.js";
import { sameOriginForms } from "./formOrigin.js";
import { callLibrary, libraryRequest, sendExpiredLink, sendPage } from "./pageResponses.js";
import { consentPage, problemPage, signInPage } from "./pages.js";
import { problemMessage } from "./problemMessages.js";
import { verifiedQuery } from "./signedQuery.js";
import { signupRoutes } from "./signupRoutes.js";

export interface PageRoutesOptions {
  auth: () => OAuthInstance;
  userModel: AnyModel;
  issuer: string;
  appName: string;
  loginGuard?: LoginGuard;
  /** The app's sign-up rules when people may create an account here; undefined offers none. */
  signup?: SignupRules;
}

export function oauthPageRoutes(options: PageRoutesOptions): Router {
  const { auth, issuer, appName, userModel, loginGuard, signup } = options;
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: "16kb" });
  router.use(noStore);

  // Where the library sends a person after a refusal it cannot redirect to the client.
  // Its text is chosen by the error code alone: `error_description` is the caller's and the
  // page is on the trusted origin.
  router.get("/problem", (req, res) => {
    const { code, message } = problemMessage(req.query.error);
    sendPage(res, 400, problemPage("Sign-in refused", `${message}${code ? ` (${code})` : ""}`));
  });

  const sameOrigin = sameOriginForms(issuer);
  // Who asks and where the code goes, from the signed request only: a changed link shows none.
  const clientOf = async (oauthQuery: string) => {
    const params = await verifiedQuery(auth(), oauthQuery).catch(() => undefined);
    return params ? clientViewOf(auth(), params).catch(() => undefined) : undefined;
  };

  const signupHref = (req: Request, oauthQuery: string) =>
    signup ? `${req.baseUrl}/signup?${oauthQuery}` : undefined;

  router.get("/login", async (req, res) => {
    const oauthQuery = queryOf(req);
    const client = await clientOf(oauthQuery);
    const view = {
      action: req.baseUrl + req.path,
      oauthQuery,
      appName,
      client,
      signupHref: signupHref(req, oauthQuery),
    };
    sendPage(res, 200, signInPage(view), oauthQuery);
  });

  /**
   * Gives the person who just proved who they are a session of the provider (the session
   * bridge), which then resumes the authorization request: on to consent, or to the client.
   */
  const continueAs = async (
    req: Request,
    res: Response,
    user: { id: string; email: string; name?: unknown },
    oauthQuery: string,
    onContinued?: () => void,
  ) => {
    const { request, headers } = libraryRequest(req, issuer);
    await callLibrary(res, async () => {
      const response = await auth().api.terrenoOAuthSession({
        body: {
          appUserId: user.id,
          email: user.email,
          ...(typeof user.name === "string" && user.name ? { name: user.name } : {}),
          oauth_query: oauthQuery,
        },
        headers,
        request,
        asResponse: true,
      });
      if (response.ok) onContinued?.();
      return response;
    });
  };

  const signIn = async (req: Request, res: Response) => {
    const oauthQuery = field(req, "oauth_query");
    const email = normalizeEmail(field(req, "email").trim());
    const again = async (status: number, error: string) => {
      const client = await clientOf(oauthQuery);
      const view = {
        action: req.baseUrl + req.path,
        oauthQuery,
        appName,
        client,
        email,
        error,
        signupHref: signupHref(req, oauthQuery),
      };
      sendPage(res, status, signInPage(view), oauthQuery);
    };
    if (!oauthQuery) {
      sendPage(res, 400, problemPage("Sign-in failed", "This sign-in link is incomplete."));
      return;
    }
    const verdict = await judgeLogin(userModel, loginGuard, {
      email,
      password: field(req, "password"),
      ip: clientIp(req),
      deviceToken: presentedDeviceToken(undefined, req.headers.cookie),
    });
    if (verdict.kind === "locked") {
      await again(429, "Too many failed sign-ins for this account. Wait a minute and try again.");
      return;
    }
    if (verdict.kind === "invalid") {
      await again(401, "Invalid email or password.");
      return;
    }
    if (verdict.kind === "disabled") {
      await again(403, "This account is disabled.");
      return;
    }
    const { user, deviceToken } = verdict;
    const who = { id: String(user._id), email, name: user.get("name") };
    // The device is remembered once the sign-in went through (not for a stale link).
    await continueAs(req, res, who, oauthQuery, () =>
      res.append("Set-Cookie", deviceCookie(deviceToken, req.secure)),
    );
  };
  router.post("/login", form, sameOrigin, signIn);
  if (signup) {
    router.use(
      signupRoutes({ userModel, appName, rules: signup, clientOf, continueAs, form, sameOrigin }),
    );
  }

  router.get("/consent", async (req, res) => {
    const oauthQuery = queryOf(req);
    // The heading, the scopes and Allow's target come from the request as the provider signed
    // it; Allow would fail on a changed one anyway.
    const params = await verifiedQuery(auth(), oauthQuery);
    if (!params) {
      sendExpiredLink(res);
      return;
    }
    const headers = libraryRequest(req, issuer).headers;
    const session = await auth().api.getSession({ headers });
    const clientId = params.get("client_id");
    if (!session || !clientId) {
      sendPage(res, 401, problemPage("Sign-in expired", "Your sign-in has expired."));
      return;
    }
    const client = await clientViewOf(auth(), params).catch(() => undefined);
    if (!client) {
      sendPage(res, 400, problemPage("Sign-in refused", problemMessage("invalid_client").message));
      return;
    }
    const scopes = (params.get("scope") ?? "").split(" ").filter(Boolean);
    const view = {
      action: req.baseUrl + req.path,
      oauthQuery,
      // Allow posts this same signed query back: the code can only go where the page said.
      client,
      scopes,
      userEmail: session.user.email,
      readOnlyChoice: scopes.includes(MCP_WRITE_SCOPE) && scopes.includes(MCP_READ_SCOPE),
    };
    sendPage(res, 200, consentPage(view), oauthQuery);
  });

  const consent = async (req: Request, res: Response) => {
    const oauthQuery = field(req, "oauth_query");
    const decision = field(req, "decision");
    const scopes = (new URLSearchParams(oauthQuery).get("scope") ?? "").split(" ");
    const { request, headers } = libraryRequest(req, issuer);
    await callLibrary(res, () =>
      auth().api.oauth2Consent({
        body: {
          accept: decision === "allow" || decision === "allow-read",
          ...(decision === "allow-read"
            ? { scope: scopes.filter((scope) => scope && scope !== MCP_WRITE_SCOPE).join(" ") }
            : {}),
          oauth_query: oauthQuery,
        },
        headers,
        request,
        asResponse: true,
      }),
    );
  };
  router.post("/consent", form, sameOrigin, consent);

  return router;
}
