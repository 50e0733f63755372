/** Signed out: the sign-in form. Signed in: the chat page, one per user (a new user starts afresh). */
import { ChatPage } from "./components/ChatPage.js";
import { SignIn } from "./components/SignIn.js";
import { useSession } from "./session.js";

export function App() {
  const session = useSession();
  return session ? <ChatPage key={session.userId} session={session} /> : <SignIn />;
}
