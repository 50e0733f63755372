/**
 * The current workspace of a call: who may choose it, and how the choice is judged. The
 * memberships come from the app's `WorkspaceDirectory` (src/workspaces builds the default one on
 * the app's connection; an app with its own organization model gives its own lookup); this file
 * only reads them, so the core stays free of any model.
 *
 * A call's workspace is, in order: the one its personal access token is bound to
 * (`user.boundWorkspaceId`), the `X-Workspace-Id` header (a header naming another workspace than
 * the bound token's is 403), or the caller's only membership. A chosen workspace the caller is
 * not a member of is 404, exactly like one that does not exist. With several memberships and no
 * choice, a scoped call fails with a 400 listing them and how to choose.
 *
 * Resolution is lazy and memoized per call (`workspaceAccess`): unscoped calls never look up a
 * membership.
 */
import { forbidden, notFound, TerrenoError, unauthenticated } from "./errors.js";
import type { PermissionMethod, RequestContext, User } from "./types.js";
import type {
  CurrentWorkspace,
  WorkspaceAccess,
  WorkspaceDirectory,
  WorkspaceMembership,
} from "./workspaceTypes.js";

export type { CurrentWorkspace };

/** The header any HTTP client (REST, chat, /mcp) names its workspace with. Lower-cased. */
export const WORKSPACE_HEADER = "x-workspace-id";

/** The roles when the app sets none: highest first. */
export const DEFAULT_WORKSPACE_ROLES: readonly string[] = ["owner", "member", "viewer"];

/** Whether `role` ranks at or above `min` in `roles` (highest first). Unknown roles rank lowest. */
function roleAtLeast(roles: readonly string[], role: string, min: string): boolean {
  const rank = roles.indexOf(role);
  const needed = roles.indexOf(min);
  return rank >= 0 && needed >= 0 && rank <= needed;
}

function chooseWorkspaceError(memberships: WorkspaceMembership[]): TerrenoError {
  const list = memberships.map((m) => `${m.name} (id ${m.workspaceId}, ${m.role})`).join("; ");
  return new TerrenoError(
    "validation_failed",
    `You are a member of several workspaces; choose one: send the X-Workspace-Id header, or use a personal access token bound to the workspace (POST /auth/tokens with workspaceId). Your workspaces: ${list}.`,
    { workspace: "is required" },
  );
}

const workspaceNotFound = () => notFound("The workspace was not found.");

/** The caller's current workspace, or the error that says why there is none. */
function resolve(
  user: User | undefined,
  header: string | undefined,
  memberships: WorkspaceMembership[],
): CurrentWorkspace | TerrenoError {
  if (!user) return unauthenticated();
  const bound = user.boundWorkspaceId;
  const asked = header?.trim() || undefined;
  if (bound && asked && asked !== bound) {
    return forbidden(
      "This token is bound to another workspace than the X-Workspace-Id header names.",
    );
  }
  const chosen = bound ?? asked;
  if (chosen) {
    const membership = memberships.find((m) => m.workspaceId === chosen);
    return membership ? currentOf(membership) : workspaceNotFound();
  }
  if (memberships.length === 1) return currentOf(memberships[0]);
  if (memberships.length === 0) return notFound("You are not a member of any workspace.");
  return chooseWorkspaceError(memberships);
}

function currentOf(m: WorkspaceMembership): CurrentWorkspace {
  return { id: m.workspaceId, name: m.name, role: m.role };
}

/** A call's `WorkspaceAccess`: looks the memberships up once, when first asked. */
export function workspaceAccess(
  directory: WorkspaceDirectory,
  facts: Pick<RequestContext, "user" | "headers">,
): WorkspaceAccess {
  let membershipsPromise: Promise<WorkspaceMembership[]> | undefined;
  const memberships = () => {
    const user = facts.user;
    membershipsPromise ??= user ? directory.membershipsOf(user.id) : Promise.resolve([]);
    return membershipsPromise;
  };
  let known: CurrentWorkspace | undefined;
  const settled = async () => {
    const answer = resolve(facts.user, facts.headers[WORKSPACE_HEADER], await memberships());
    if (!(answer instanceof TerrenoError)) known = answer;
    return answer;
  };
  return {
    memberships,
    settled: () => known,
    async current() {
      const answer = await settled();
      if (answer instanceof TerrenoError) throw answer;
      return answer;
    },
    async peek() {
      const answer = await settled();
      return answer instanceof TerrenoError ? null : answer;
    },
    async hasRole(min) {
      if (!facts.user) return false;
      const answer = await settled();
      if (!(answer instanceof TerrenoError)) return roleAtLeast(directory.roles, answer.role, min);
      // Several memberships and none chosen: the tool list shows what a choice would allow.
      if (answer.code !== "validation_failed") return false;
      return (await memberships()).some((m) => roleAtLeast(directory.roles, m.role, min));
    },
  };
}

/**
 * A permission check: the caller holds `min` or a higher role in the current workspace
 * (`permissions: {list: [WorkspaceRole("viewer")], delete: [WorkspaceRole("owner")]}`). Fails
 * where the app has no workspaces.
 */
export function WorkspaceRole(min: string): PermissionMethod {
  return async (_method, user, _obj, caller) => {
    if (!user || !caller?.workspace) return false;
    return caller.workspace.hasRole(min);
  };
}
