/**
 * The OAuth sign-up page: for a person with no account yet, opened from the sign-in page of an
 * authorization request. Like the other pages: a plain form, no script, every value escaped.
 */
import { askingLines, type ClientView, escapeHtml, hidden, page } from "./pages.js";

export interface SignUpPage {
  action: string;
  oauthQuery: string;
  appName: string;
  client?: ClientView;
  /** Offer a name field (the app's signup fields include `name`). */
  askName: boolean;
  /** The sign-in page of the same request. */
  signInHref: string;
  email?: string;
  name?: string;
  error?: string;
}

export function signUpPage(view: SignUpPage): string {
  const name = view.askName
    ? `<label for="name">Name</label>
<input id="name" name="name" type="text" autocomplete="name" value="${escapeHtml(view.name ?? "")}">`
    : "";
  return page(
    `Create an account on ${view.appName}`,
    `<h1>Create an account on ${escapeHtml(view.appName)}</h1>
${askingLines(view.client)}
${view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : ""}
<form method="post" action="${escapeHtml(view.action)}">
${hidden("oauth_query", view.oauthQuery)}
${name}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(view.email ?? "")}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required>
<button type="submit">Create account and continue</button>
</form>
<p class="muted">Already have an account? <a id="signin-link" href="${escapeHtml(view.signInHref)}">Sign in</a></p>`,
  );
}
