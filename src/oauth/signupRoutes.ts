/**
 * `GET|POST <basePath>/signup`: a person without an account creates one from an authorization
 * request, when the app allows sign-up. The account is made by the same code as
 * `POST /auth/signup` (src/auth/signup.ts: same fields, rules and `onSignup` hook) and the post
 * spends the same per-IP auth points; then the authorization continues as after a sign-in.
 */
import express, { type Request, type RequestHandler, type Response, type Router } from "express";
import { createAccount, type SignupRules, signupFieldsOf } from "../auth/signup.js";
import { normalizeError } from "../core/normalizeError.js";
import type { AnyModel } from "../core/types.js";
import { field, queryOf } from "./formFields.js";
import { sendPage } from "./pageResponses.js";
import { type ClientView, problemPage } from "./pages.js";
import { signUpPage } from "./signupView.js";

export interface SignupRouteContext {
  userModel: AnyModel;
  appName: string;
  rules: SignupRules;
  clientOf(oauthQuery: string): Promise<ClientView | undefined>;
  /** Signs the new user in and resumes the authorization request (pageRoutes.ts). */
  continueAs(
    req: Request,
    res: Response,
    user: { id: string; email: string; name?: unknown },
    oauthQuery: string,
  ): Promise<void>;
  form: RequestHandler;
  sameOrigin: RequestHandler;
}

/** The words a person reads for a refused sign-up: the field errors, or the refusal itself. */
function refusalText(fields: Record<string, string> | undefined, detail: string): string {
  if (!fields) return detail;
  return Object.entries(fields)
    .map(([name, problem]) => `${name[0]?.toUpperCase()}${name.slice(1)} ${problem}.`)
    .join(" ");
}

export function signupRoutes(context: SignupRouteContext): Router {
  const { userModel, appName, rules, clientOf, continueAs } = context;
  const router = express.Router();
  const askName = signupFieldsOf(userModel, rules).includes("name");

  const show = async (
    req: Request,
    res: Response,
    status: number,
    oauthQuery: string,
    extra: { email?: string; name?: string; error?: string } = {},
  ) => {
    const view = {
      action: `${req.baseUrl}/signup`,
      oauthQuery,
      appName,
      client: await clientOf(oauthQuery),
      askName,
      signInHref: `${req.baseUrl}/login?${oauthQuery}`,
      ...extra,
    };
    sendPage(res, status, signUpPage(view), oauthQuery);
  };

  router.get("/signup", (req, res) => show(req, res, 200, queryOf(req)));

  router.post("/signup", context.form, context.sameOrigin, async (req, res) => {
    const oauthQuery = field(req, "oauth_query");
    if (!oauthQuery) {
      sendPage(res, 400, problemPage("Sign-up failed", "This sign-up link is incomplete."));
      return;
    }
    const email = field(req, "email").trim();
    const name = field(req, "name").trim();
    // Exactly what /auth/signup would be sent: the page's own fields, nothing else.
    const body = { email, password: field(req, "password"), ...(askName && name ? { name } : {}) };
    let user: Awaited<ReturnType<typeof createAccount>>;
    try {
      user = await createAccount(userModel, rules, body);
    } catch (error) {
      const refusal = normalizeError(error);
      if (refusal.status >= 500) throw error;
      const text =
        // A taken email; a lookalike of one names the email field instead.
        refusal.code === "conflict" && !refusal.fields
          ? "An account with this email already exists. Sign in instead."
          : refusalText(refusal.fields, refusal.message);
      await show(req, res, refusal.status, oauthQuery, { email, name, error: text });
      return;
    }
    const who = { id: String(user._id), email: String(user.get("email")), name: user.get("name") };
    await continueAs(req, res, who, oauthQuery);
  });

  return router;
}
