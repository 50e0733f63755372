/**
 * Issue #35.7: the example page's workspace switcher and projects panel. A person creates two
 * workspaces and a project in each from the page; switching workspaces shows only that
 * workspace's projects (every call carries X-Workspace-Id), a reload stays in the one chosen, and
 * the chat asked to list the projects sees only the chosen workspace's.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { browserSkipReason } from "../helpers/browser.js";
import { useTestDatabase } from "../helpers/database.js";
import { useExamplePage } from "../helpers/examplePage.js";

useTestDatabase("example_workspaces_browser");

describe("the example page's workspaces", { skip: browserSkipReason() }, () => {
  const ex = useExamplePage();

  test("switching workspaces shows only that workspace's projects, in the panel and the chat", async () => {
    await ex.signUp("switcher@example.com");
    const page = ex.page;
    const panel = page.getByRole("region", { name: "Workspace" });
    await panel.getByText("You are in no workspace yet").waitFor();

    const projects = panel.getByRole("list", { name: "Project list" });
    for (const [workspace, project] of [
      ["Alpha", "Alpha rocket"],
      ["Beta", "Beta boat"],
    ] as const) {
      await panel.getByLabel("New workspace name").fill(workspace);
      await panel.getByRole("button", { name: "Create" }).click();
      await panel.getByText(`No projects in ${workspace} yet.`).waitFor();
      await panel.getByLabel("New project name").fill(project);
      await panel.getByRole("button", { name: "Add" }).click();
      await projects.getByText(project).waitFor();
    }

    const switcher = panel.getByLabel("Current workspace");
    const workspaces = (await ex.api("/workspaces")) as Array<{ id: string; name: string }>;
    const idOf = (name: string) => workspaces.find((w) => w.name === name)?.id ?? "";
    assert.equal(await switcher.inputValue(), idOf("Beta"));
    assert.deepEqual(await projects.getByRole("listitem").allTextContents(), ["Beta boatplanned"]);

    await switcher.selectOption(idOf("Alpha"));
    await projects.getByText("Alpha rocket").waitFor();
    assert.deepEqual(await projects.getByRole("listitem").allTextContents(), [
      "Alpha rocketplanned",
    ]);

    // A reload stays in the workspace chosen.
    await page.reload();
    await projects.getByText("Alpha rocket").waitFor();
    assert.equal(await panel.getByLabel("Current workspace").inputValue(), idOf("Alpha"));

    // The chat works in the chosen workspace: its projects_list sees only that one's.
    const log = page.getByRole("log", { name: "Messages" });
    const lastAnswer = () => log.getByRole("article", { name: "Assistant message" }).last();
    await ex.say("list the projects");
    await lastAnswer().getByText("The projects (1):").waitFor();
    assert.match(String(await lastAnswer().textContent()), /Alpha rocket/);
    assert.doesNotMatch(String(await lastAnswer().textContent()), /Beta boat/);

    await panel.getByLabel("Current workspace").selectOption(idOf("Beta"));
    await projects.getByText("Beta boat").waitFor();
    // Another workspace starts a new chat there.
    await log.getByText("list the projects").waitFor({ state: "detached" });
    await ex.say("list the projects");
    await lastAnswer().getByText("The projects (1):").waitFor();
    assert.match(String(await lastAnswer().textContent()), /Beta boat/);
    assert.doesNotMatch(String(await lastAnswer().textContent()), /Alpha rocket/);
    assert.deepEqual(ex.problems, []);
  });
});
