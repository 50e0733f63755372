/**
 * The caller's todos, read from the same REST API the assistant's tools use (GET /todos), so a
 * write the assistant makes shows up here. The chat page reloads it after every reply. A column
 * on a wide screen, a drawer opened from the top bar on a narrow one. Below them, the workspace
 * and its projects (WorkspacePanel).
 */
import type { ReactNode } from "react";
import { drawerId } from "../hooks/useDrawer.js";
import type { Resource } from "../hooks/useResource.js";
import type { Todo } from "../types.js";
import { DrawerClose } from "./DrawerClose.js";

function due(todo: Todo): string | undefined {
  return todo.dueDate ? `due ${todo.dueDate.slice(0, 10)}` : undefined;
}

interface Props {
  todos: Resource<Todo>;
  /** Open as a drawer (a narrow screen). */
  open: boolean;
  onClose(): void;
  /** More of the panel, below the todos (the workspace and its projects). */
  children?: ReactNode;
}

export function TodosPanel({ todos, open, onClose, children }: Props) {
  return (
    <aside id={drawerId("todos")} className={open ? "todos open" : "todos"} aria-label="Todos">
      <div className="row drawer-head">
        <h2>Your todos</h2>
        <span className="spacer" />
        <button type="button" className="secondary small" onClick={todos.reload}>
          Refresh
        </button>
        <DrawerClose onClose={onClose} />
      </div>
      {todos.error ? (
        <p role="alert" className="error">
          {todos.error}
        </p>
      ) : null}
      {!todos.loading && todos.items.length === 0 && !todos.error ? (
        <p className="muted">No todos yet. Ask the assistant to add one.</p>
      ) : null}
      <ul aria-label="Todo list">
        {todos.items.map((todo) => (
          <li key={todo.id} className={todo.completed ? "todo done" : "todo"}>
            <span aria-hidden="true">{todo.completed ? "☑" : "☐"}</span>
            <span className="todo-title">{todo.title}</span>
            {due(todo) ? <span className="muted small">{due(todo)}</span> : null}
          </li>
        ))}
      </ul>
      {children}
    </aside>
  );
}
