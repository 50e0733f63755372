/**
 * The signed-in page: the conversations sidebar, the chat, and the todos panel with the
 * workspace switcher and its projects (X-Workspace-Id on every call, the chat's too). The open
 * conversation's id lives in the address (?c=), so a reload reopens it with its messages.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, apiJson } from "../api.js";
import { useConversationParam } from "../hooks/useConversationParam.js";
import { useDrawer } from "../hooks/useDrawer.js";
import { useResource } from "../hooks/useResource.js";
import { loadConversation, type OpenChat } from "../loadConversation.js";
import type { Session } from "../session.js";
import type { Conversation, Project, Todo, Workspace } from "../types.js";
import { useWorkspaceId } from "../workspace.js";
import { ChatPanel } from "./ChatPanel.js";
import { ConversationSidebar } from "./ConversationSidebar.js";
import { Header } from "./Header.js";
import { TodosPanel } from "./TodosPanel.js";
import { WorkspacePanel } from "./WorkspacePanel.js";

/** crypto.randomUUID needs a secure context; the example may be opened over plain http on a LAN. */
function randomId(): string {
  return (
    globalThis.crypto?.randomUUID?.() ?? `chat-${Date.now()}-${Math.random().toString(36).slice(2)}`
  );
}

const newChat = (): OpenChat => ({
  chatId: randomId(),
  conversationId: undefined,
  messages: [],
  ratings: new Map(),
  heldCalls: [],
});

export function ChatPage({ session }: { session: Session }) {
  const [conversationId, setConversationId] = useConversationParam();
  const [open, setOpen] = useState<OpenChat | undefined>();
  const [openError, setOpenError] = useState<string>();
  const conversations = useResource<Conversation>("/chat/conversations");
  const todos = useResource<Todo>("/todos");
  const workspaceId = useWorkspaceId();
  const workspaces = useResource<Workspace>("/workspaces");
  const projects = useResource<Project>(workspaceId ? "/projects" : undefined, workspaceId);
  const reloadConversations = conversations.reload;
  const reloadTodos = todos.reload;
  const reloadProjects = projects.reload;
  const drawer = useDrawer();

  const openConversation = useCallback(
    async (id: string | undefined) => {
      setOpenError(undefined);
      if (!id) {
        setConversationId(undefined);
        setOpen(newChat());
        return;
      }
      try {
        const chat = await loadConversation(id);
        setConversationId(id);
        setOpen(chat);
      } catch (reason) {
        // A deleted (or someone else's) conversation in the address: start a new one.
        if (!(reason instanceof ApiError && reason.status === 404)) {
          setOpenError(reason instanceof Error ? reason.message : String(reason));
        }
        setConversationId(undefined);
        setOpen(newChat());
      }
    },
    [setConversationId],
  );

  // On load: reopen the conversation named in the address (once; later changes come from here).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once, with the id of the first render
  useEffect(() => {
    void openConversation(conversationId);
  }, []);

  const onConversation = useCallback(
    (id: string) => {
      setConversationId(id);
      reloadConversations();
    },
    [setConversationId, reloadConversations],
  );

  const onReplyFinished = useCallback(() => {
    reloadTodos();
    reloadProjects();
    reloadConversations();
  }, [reloadTodos, reloadProjects, reloadConversations]);

  // Another workspace: a new chat there (a conversation stays where it was started).
  const firstWorkspace = useRef(workspaceId);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the workspace changes
  useEffect(() => {
    if (firstWorkspace.current === workspaceId) return;
    firstWorkspace.current = workspaceId;
    reloadConversations();
    void openConversation(undefined);
  }, [workspaceId]);

  /** Runs a sidebar change, shows its error if any, then reloads the list either way. */
  async function change(action: () => Promise<unknown>) {
    setOpenError(undefined);
    try {
      await action();
    } catch (reason) {
      setOpenError(reason instanceof Error ? reason.message : String(reason));
    }
    reloadConversations();
  }

  const rename = (id: string, title: string) =>
    change(() =>
      apiJson(`/chat/conversations/${encodeURIComponent(id)}`, {
        method: "PATCH",
        body: JSON.stringify({ title }),
      }),
    );

  const remove = (id: string) =>
    change(async () => {
      await apiJson(`/chat/conversations/${encodeURIComponent(id)}`, { method: "DELETE" });
      if (id === conversationId) await openConversation(undefined);
    });

  return (
    <div className="page">
      <Header session={session} drawer={drawer} />
      <div className="layout">
        <ConversationSidebar
          conversations={conversations}
          currentId={conversationId}
          onOpen={(id) => {
            drawer.close();
            void openConversation(id);
          }}
          onNew={() => {
            drawer.close();
            void openConversation(undefined);
          }}
          onRename={rename}
          onDelete={remove}
          open={drawer.open === "conversations"}
          onClose={drawer.close}
        />
        {open ? (
          <ChatPanel
            key={open.chatId}
            chatId={open.chatId}
            conversationId={open.conversationId}
            initialMessages={open.messages}
            ratings={open.ratings}
            heldCalls={open.heldCalls}
            onConversation={onConversation}
            onReplyFinished={onReplyFinished}
          />
        ) : (
          <main className="chat" aria-label="Chat">
            <p className="muted">Loading the conversation…</p>
          </main>
        )}
        <TodosPanel todos={todos} open={drawer.open === "todos"} onClose={drawer.close}>
          <WorkspacePanel workspaces={workspaces} projects={projects} workspaceId={workspaceId} />
        </TodosPanel>
        {drawer.open ? (
          // A tap beside an open drawer closes it (Escape and its Close button do too).
          <button
            type="button"
            className="drawer-backdrop"
            aria-hidden="true"
            tabIndex={-1}
            onClick={drawer.close}
          />
        ) : null}
      </div>
      {openError ? (
        <p role="alert" className="error toast">
          {openError}
        </p>
      ) : null}
    </div>
  );
}
