/** Email + password, then "Sign in" (POST /auth/login) or "Sign up" (POST /auth/signup). */
import { type FormEvent, useState } from "react";
import { authenticate } from "../api.js";

export function SignIn() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // Which button submitted the form picks the route.
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    const kind = submitter?.value === "signup" ? "signup" : "login";
    setBusy(true);
    setError(undefined);
    try {
      await authenticate(kind, email, password);
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
      setBusy(false);
    }
  }

  return (
    <main className="signin">
      <form className="signin-card" aria-label="Sign in" onSubmit={submit}>
        <h1>terreno-mcp example</h1>
        <p className="muted">
          Sign in, or sign up with any email and a password of 8 characters or more, to chat with an
          assistant that works on your todos through the app's own tools.
        </p>
        <label>
          Email
          <input
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            autoComplete="current-password"
            required
            minLength={8}
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </label>
        {error ? (
          <p role="alert" className="error">
            {error}
          </p>
        ) : null}
        <div className="row">
          <button type="submit" value="login" disabled={busy}>
            Sign in
          </button>
          <button type="submit" value="signup" className="secondary" disabled={busy}>
            Sign up
          </button>
        </div>
      </form>
    </main>
  );
}
