/** The docs check: which blocks it finds, its opt-out markers, and errors mapped to file:line. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  blockFileName,
  checkBlocks,
  checkLinks,
  extractBlocks,
  headingSlug,
} from "../../scripts/docsBlocks.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const markdown = [
  "# Guide", //                                     1
  "```ts", //                                       2
  "const a: number = 1;", //                        3
  "```", //                                         4
  "```sh", //                                       5
  "echo not checked", //                            6
  "```", //                                         7
  "```ts no-check: needs a provider package", //    8
  "import { x } from 'nowhere';", //                9
  "```", //                                         10
  "<!-- no-check: a fragment of the block above -->", // 11
  "```tsx", //                                      12
  "<p>{a}</p>", //                                  13
  "```", //                                         14
  "```ts no-check", //                              15
  "const b = 2;", //                                16
  "```", //                                         17
  "- a list item:", //                              18
  "", //                                            19
  "  ```typescript", //                             20
  "  const indented: string = 'yes';", //           21
  "  ```", //                                       22
].join("\n");

describe("extractBlocks", () => {
  const { blocks, problems } = extractBlocks("guide.md", markdown);

  test("finds ts, tsx and typescript blocks, indented ones included, and no others", () => {
    assert.deepEqual(
      blocks.map((block) => [block.fenceLine, block.lang]),
      [
        [2, "ts"],
        [8, "ts"],
        [12, "tsx"],
        [15, "ts"],
        [20, "ts"],
      ],
    );
    assert.equal(blocks[4]?.code, "const indented: string = 'yes';");
  });

  test("an info-string or comment marker with a reason opts a block out", () => {
    assert.equal(blocks[1]?.noCheck, "needs a provider package");
    assert.equal(blocks[2]?.noCheck, "a fragment of the block above");
    assert.equal(blocks[0]?.noCheck, undefined);
  });

  test("a marker without a reason is a problem and checks the block anyway", () => {
    assert.deepEqual(problems, [
      { file: "guide.md", line: 15, message: "no-check needs a reason" },
    ]);
    assert.equal(blocks[3]?.noCheck, undefined);
  });

  test("a first-line comment names the block's file", () => {
    const block = { file: "g.md", fenceLine: 1, lang: "ts" as const, code: "// app.ts: the app\n" };
    assert.equal(blockFileName(block), "app.ts");
    assert.equal(blockFileName({ ...block, code: "// not a name\n" }), undefined);
  });
});

describe("checkBlocks", () => {
  test("reports a type error at its Markdown line; named blocks import each other", () => {
    const dir = path.join(root, ".cache", `docs-check-test-${process.pid}`);
    try {
      const doc = [
        "```ts", //                               1
        "// lib.ts", //                           2
        "export const answer = 42;", //           3
        "```", //                                 4
        "```ts", //                               5
        'import { answer } from "./lib.js";', //  6
        "const text: string = answer;", //        7
        "```", //                                 8
        "```ts no-check: broken on purpose", //   9
        "const nope: number = 'x';", //           10
        "```", //                                 11
      ].join("\n");
      const { blocks } = extractBlocks("docs/doc.md", doc);
      const diagnostics = checkBlocks({ dir, blocks });
      assert.deepEqual(
        diagnostics.map((d) => [d.location, d.code]),
        [["docs/doc.md:7:7", 2322]],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("checkLinks", () => {
  test("finds links to missing files and to headings that do not exist", () => {
    const files = [
      {
        file: "README.md",
        markdown: [
          "# Title",
          "See [the guide](docs/guide.md#react-hooks-terreno-mcpreact) and [a gap](docs/gone.md).",
          "And [here](#title), [nowhere](#no-such), [out](https://example.com/#x).",
          "```md",
          "[inside a fence](#ignored)",
          "```",
        ].join("\n"),
      },
      {
        file: "docs/guide.md",
        markdown: "# Guide\n## React hooks (`terreno-mcp/react`)\n[up](../README.md#title)",
      },
    ];
    const exists = (target: string) => ["README.md", "docs/guide.md"].includes(target);
    assert.deepEqual(checkLinks(files, exists), [
      { file: "README.md", line: 2, message: "broken link: docs/gone.md (no docs/gone.md)" },
      {
        file: "README.md",
        line: 3,
        message: "broken link: #no-such (no heading #no-such in README.md)",
      },
    ]);
  });

  test("checks the src of an HTML <img> too", () => {
    const files = [
      {
        file: "README.md",
        markdown: '<img src="docs/shot.png" width="70%" alt="a"> <img alt="b" src="docs/gone.png">',
      },
    ];
    const exists = (target: string) => ["README.md", "docs/shot.png"].includes(target);
    assert.deepEqual(checkLinks(files, exists), [
      { file: "README.md", line: 1, message: "broken link: docs/gone.png (no docs/gone.png)" },
    ]);
  });

  test("anchors follow GitHub's rule", () => {
    assert.equal(headingSlug("The example's web page"), "the-examples-web-page");
    assert.equal(
      headingSlug("Built-in authorization server (`terreno-mcp/oauth`)"),
      "built-in-authorization-server-terreno-mcpoauth",
    );
  });
});
