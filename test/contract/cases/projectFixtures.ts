/** Issue #22's Project fixtures, shared by the document-shape, populated-ref and null cases. */
import type { Account } from "../world.js";
import { seedProject, storedProject } from "../world.js";

/** A project with every shape the cases need: `member` its one member, `lead` its lead. */
export function seedFullProject(
  member: Account,
  lead: Account,
  tag: string,
  fields: Record<string, unknown> = {},
): Promise<string> {
  return seedProject({
    name: `project ${tag}`,
    members: [{ user: member.userId, role: "editor" }],
    lead: lead.userId,
    reviewers: [lead.userId, member.userId],
    milestones: [
      { title: "alpha", done: true, due: new Date("2031-02-03T00:00:00.000Z") },
      { title: "beta" },
    ],
    labels: { area: "infra", team: "core" },
    settings: { visibility: "team", color: "red" },
    status: "active",
    ...fields,
  });
}

/** The stored project, as plain JSON (ids as hex, dates as ISO strings). */
export async function storedProjectJson(id: string): Promise<Record<string, unknown>> {
  return JSON.parse(JSON.stringify(await storedProject(id)));
}

/** A read's output as a body: everything but the document's own `id` (the id is the target). */
export function asBody(read: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...body } = read;
  return body;
}
