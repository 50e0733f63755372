/**
 * The bench's child processes (bench/lib/processes.ts). A one-shot child closes its channel as
 * soon as it has sent its result, so stopping it right after must wait for its exit rather than
 * write to the closed channel: that write used to surface as an unhandled `write EPIPE` that
 * killed `npm run bench:prod` in its kept section. A child that dies must say which child and
 * what it wrote to stderr.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { forkChild } from "../../bench/lib/processes.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const FIXTURE = path.join(root, "test", "bench", "fixtures", "child.ts");

const start = (name: string, mode: string) =>
  forkChild({
    name,
    script: FIXTURE,
    cwd: root,
    env: { ...process.env, BENCH_CHILD_MODE: mode },
    quietStderr: true,
  });

describe("bench child processes", () => {
  test("a one-shot child is stopped right after its result without writing to its channel", async () => {
    // The race is between the result message and the channel's close, so try it several times.
    for (let i = 0; i < 6; i += 1) {
      const child = await start(`one-shot-${i}`, "one-shot");
      assert.deepEqual(await child.result(), { answer: 42 });
      await child.stop();
      assert.equal(child.process.exitCode, 0);
    }
  });

  test("a child that dies before it is ready is named, with its stderr", async () => {
    await assert.rejects(start("dies-early", "die-early"), (error: Error) => {
      assert.match(error.message, /^dies-early exited \(code 3/);
      assert.match(error.message, /cannot start \(die-early\)/);
      return true;
    });
  });

  test("a child that dies instead of answering is named, with its stderr; requests then fail clearly", async () => {
    const child = await start("dies-later", "die-later");
    await assert.rejects(child.result(), (error: Error) => {
      assert.match(error.message, /^dies-later exited \(code 4.*before sending result/);
      assert.match(error.message, /gave up before a result \(die-later\)/);
      return true;
    });
    await assert.rejects(
      child.memory(),
      /^Error: dies-later exited \(code 4, signal null\) .*memory/,
    );
    await child.stop();
  });
});
