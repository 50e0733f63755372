/**
 * The workspace the page works in, and its projects: a switcher over the caller's workspaces
 * (GET /workspaces), a form to create one (its creator is its owner), and the current
 * workspace's projects (GET /projects, sent with X-Workspace-Id), read from the same REST API the
 * assistant's tools use. Members and owners may add a project here; viewers only read.
 */
import { type FormEvent, useEffect, useState } from "react";
import { apiJson } from "../api.js";
import type { Resource } from "../hooks/useResource.js";
import type { Project, Workspace } from "../types.js";
import { setWorkspaceId } from "../workspace.js";

interface Props {
  workspaces: Resource<Workspace>;
  projects: Resource<Project>;
  workspaceId: string | undefined;
}

const message = (reason: unknown) => (reason instanceof Error ? reason.message : String(reason));

export function WorkspacePanel({ workspaces, projects, workspaceId }: Props) {
  const [newWorkspace, setNewWorkspace] = useState("");
  const [newProject, setNewProject] = useState("");
  const [error, setError] = useState<string>();
  const current = workspaces.items.find((workspace) => workspace.id === workspaceId);

  // The chosen workspace must be one of the caller's: else the first (or none).
  useEffect(() => {
    if (workspaces.loading || workspaces.error) return;
    if (!current) setWorkspaceId(workspaces.items[0]?.id);
  }, [current, workspaces.items, workspaces.loading, workspaces.error]);

  async function createWorkspace(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      const made = await apiJson<Workspace>("/workspaces", {
        method: "POST",
        body: JSON.stringify({ name: newWorkspace }),
      });
      setNewWorkspace("");
      setWorkspaceId(made.id);
      workspaces.reload();
    } catch (reason) {
      setError(message(reason));
    }
  }

  async function addProject(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      await apiJson<Project>("/projects", {
        method: "POST",
        body: JSON.stringify({ name: newProject }),
      });
      setNewProject("");
      projects.reload();
    } catch (reason) {
      setError(message(reason));
    }
  }

  return (
    <section className="workspace" aria-label="Workspace">
      <h2>Workspace</h2>
      {workspaces.items.length > 0 ? (
        <select
          aria-label="Current workspace"
          value={current?.id ?? ""}
          onChange={(event) => setWorkspaceId(event.target.value)}
        >
          {workspaces.items.map((workspace) => (
            <option key={workspace.id} value={workspace.id}>
              {workspace.name} ({workspace.role})
            </option>
          ))}
        </select>
      ) : workspaces.loading ? null : (
        <p className="muted">You are in no workspace yet: create one, or accept an invitation.</p>
      )}
      <form className="row inline-form" onSubmit={createWorkspace}>
        <input
          aria-label="New workspace name"
          placeholder="New workspace"
          value={newWorkspace}
          maxLength={200}
          onChange={(event) => setNewWorkspace(event.target.value)}
        />
        <button type="submit" className="secondary small" disabled={!newWorkspace.trim()}>
          Create
        </button>
      </form>
      {current ? (
        <>
          <div className="row drawer-head">
            <h3>Projects</h3>
            <span className="spacer" />
            <button type="button" className="secondary small" onClick={projects.reload}>
              Refresh
            </button>
          </div>
          {!projects.loading && projects.items.length === 0 && !projects.error ? (
            <p className="muted">No projects in {current.name} yet.</p>
          ) : null}
          <ul aria-label="Project list">
            {projects.items.map((project) => (
              <li key={project.id} className="todo">
                <span className="todo-title">{project.name}</span>
                <span className="muted small">{project.status}</span>
              </li>
            ))}
          </ul>
          {current.role !== "viewer" ? (
            <form className="row inline-form" onSubmit={addProject}>
              <input
                aria-label="New project name"
                placeholder="New project"
                value={newProject}
                maxLength={200}
                onChange={(event) => setNewProject(event.target.value)}
              />
              <button type="submit" className="secondary small" disabled={!newProject.trim()}>
                Add
              </button>
            </form>
          ) : null}
        </>
      ) : null}
      {error || projects.error || workspaces.error ? (
        <p role="alert" className="error">
          {error ?? projects.error ?? workspaces.error}
        </p>
      ) : null}
    </section>
  );
}
