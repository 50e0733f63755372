/** Issue #22's Project fixtures, shared by the document-shape, populated-ref and null cases. */
import type { Account } from "../world.js";
import { seedProject } from "../world.js";

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
