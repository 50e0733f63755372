/**
 * The database helper as an app meets it: the FerretDB binary cached per user (and reused), a
 * build that says what it is doing, a clear way forward without Go, and a chosen port.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import mongoose from "mongoose";
import { defaultCacheDir } from "../../src/testing/cacheDir.js";
import {
  createTestDatabase,
  ensureFerretDBBinary,
  FERRETDB_VERSION,
  findFreePort,
} from "../../src/testing/ferretdb.js";

const temps: string[] = [];
function tempDir(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `terreno-${name}-`));
  temps.push(dir);
  return dir;
}
after(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs `body` with these environment variables set (undefined: unset), then restores them. */
async function withEnv<T>(vars: Record<string, string | undefined>, body: () => Promise<T>) {
  const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  apply(vars);
  try {
    return await body();
  } finally {
    apply(saved);
  }
}

/** A PATH with only this Node on it: no `go`. */
function pathWithoutGo(): string {
  const dir = tempDir("nogo");
  fs.symlinkSync(process.execPath, path.join(dir, "node"));
  return dir;
}

/** A fake `go` that answers `go version` and then fails slowly, to watch the progress lines. */
function pathWithSlowFailingGo(seconds: number): string {
  const dir = tempDir("slowgo");
  fs.writeFileSync(
    path.join(dir, "go"),
    `#!/bin/sh\nif [ "$1" = version ]; then echo "go version go1.99 fake"; exit 0; fi\n` +
      `sleep ${seconds}\necho "fake go: no network" >&2\nexit 1\n`,
    { mode: 0o755 },
  );
  return `${dir}:/usr/bin:/bin`;
}

describe("the cache directory", () => {
  test("is per user: TERRENO_MCP_CACHE_DIR, else $XDG_CACHE_HOME/terreno-mcp, else ~/.cache", () => {
    assert.equal(defaultCacheDir({ TERRENO_MCP_CACHE_DIR: "/x/y", XDG_CACHE_HOME: "/c" }), "/x/y");
    assert.equal(defaultCacheDir({ XDG_CACHE_HOME: "/c" }), "/c/terreno-mcp");
    assert.equal(
      defaultCacheDir({ XDG_CACHE_HOME: "relative" }),
      path.join(os.homedir(), ".cache", "terreno-mcp"),
    );
    assert.equal(defaultCacheDir({}), path.join(os.homedir(), ".cache", "terreno-mcp"));
  });

  test("a cached binary is reused without Go (a reinstall builds nothing)", async () => {
    const cacheDir = tempDir("cache");
    const cached = path.join(cacheDir, `ferretdb-${FERRETDB_VERSION}`);
    fs.writeFileSync(cached, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const logs: string[] = [];
    const found = await withEnv(
      { FERRETDB_BIN: undefined, TERRENO_MCP_CACHE_DIR: cacheDir, PATH: pathWithoutGo() },
      () => ensureFerretDBBinary({ log: (line) => logs.push(line) }),
    );
    assert.equal(found, cached);
    assert.deepEqual(logs, []);
  });
});

describe("without a database, FerretDB binary or Go", () => {
  test("createTestDatabase fails at once, naming MONGODB_URI, FERRETDB_BIN and Go", async () => {
    const cacheDir = tempDir("cache");
    const logs: string[] = [];
    await withEnv(
      {
        MONGODB_URI: undefined,
        FERRETDB_BIN: undefined,
        TERRENO_MCP_CACHE_DIR: cacheDir,
        PATH: pathWithoutGo(),
      },
      async () => {
        await assert.rejects(
          createTestDatabase({ name: "nogo", log: (line) => logs.push(line) }),
          (error: Error) => {
            assert.match(error.message, /`go` is not on PATH/);
            assert.match(error.message, /MONGODB_URI/);
            assert.match(error.message, /FERRETDB_BIN/);
            assert.match(error.message, /install Go/);
            assert.ok(error.message.includes(cacheDir), error.message);
            return true;
          },
        );
      },
    );
    // It did not announce a build it could not start, and left nothing behind.
    assert.deepEqual(logs, []);
    assert.deepEqual(fs.readdirSync(cacheDir), []);
  });
});

describe("a build", () => {
  test("says what it is doing, with the elapsed time, while it runs", async () => {
    const cacheDir = tempDir("cache");
    const logs: string[] = [];
    await withEnv({ FERRETDB_BIN: undefined, PATH: pathWithSlowFailingGo(2) }, async () => {
      await assert.rejects(
        ensureFerretDBBinary({ cacheDir, log: (line) => logs.push(line), progressIntervalMs: 200 }),
        /go mod download .* exited with code 1[\s\S]*fake go: no network/,
      );
    });
    assert.match(logs[0] ?? "", /building FerretDB v1\.24\.2 with Go, once/);
    assert.ok(
      logs.some((line) => /downloading the .* module/.test(line)),
      logs.join("\n"),
    );
    assert.ok(
      logs.some((line) => /still building FerretDB \(downloading .*\), \d+ s elapsed/.test(line)),
      logs.join("\n"),
    );
    // The failed build's work directory and lock are gone.
    assert.deepEqual(fs.readdirSync(cacheDir), []);
  });
});

describe("createTestDatabase({port})", () => {
  test("runs its private FerretDB on that port", async () => {
    const port = await findFreePort();
    const db = await withEnv({ MONGODB_URI: undefined }, () =>
      createTestDatabase({ name: "port", port }),
    );
    try {
      assert.equal(db.server?.port, port);
      assert.ok(db.uri.startsWith(`mongodb://127.0.0.1:${port}/`), db.uri);
      const connection = await mongoose.createConnection(db.uri).asPromise();
      try {
        await connection.db?.collection("items").insertOne({ n: 1 });
        assert.equal(await connection.db?.collection("items").countDocuments(), 1);
      } finally {
        await connection.close();
      }
    } finally {
      await db.close();
    }
  });
});
