/**
 * The outbound fence on its own, for callers other than CIMD: http: only when the policy allows
 * it, the bytes and content type returned, a literal special-use address refused before any
 * connection, redirects and oversize bodies refused, an abort honoured.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { addressPolicy } from "../../src/http/addressPolicy.js";
import { type FencePolicy, fencedFetch, fetchSlots } from "../../src/http/fencedFetch.js";

describe("fencedFetch over http", () => {
  let server: Server;
  let origin: string;
  let hits = 0;
  const policy: FencePolicy = {
    addresses: addressPolicy(["127.0.0.1"]),
    protocols: ["http:", "https:"],
    maxBytes: 64,
    timeoutMs: 3000,
  };
  before(async () => {
    server = createServer((req, res) => {
      hits++;
      if (req.url === "/file.txt") {
        res.writeHead(200, { "content-type": "text/plain", "cache-control": "max-age=5" });
        res.end("hello");
      } else if (req.url === "/moved") {
        res.writeHead(302, { location: "/file.txt" }).end();
      } else if (req.url === "/big") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("x".repeat(1000));
      } else if (req.url === "/slow") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("a");
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  test("returns the bytes, content type and cache-control", async () => {
    const response = await fencedFetch(`${origin}/file.txt`, policy);
    assert.equal(response.bytes.toString("utf8"), "hello");
    assert.equal(response.contentType, "text/plain");
    assert.equal(response.cacheControl, "max-age=5");
  });

  test("http: is refused unless the policy names it", async () => {
    const before = hits;
    await assert.rejects(fencedFetch(`${origin}/file.txt`, { ...policy, protocols: undefined }), {
      name: "FenceRefusal",
      reason: "protocol",
    });
    assert.equal(hits, before);
  });

  test("a literal loopback address is refused without the allow list, before connecting", async () => {
    const before = hits;
    await assert.rejects(
      fencedFetch(`${origin}/file.txt`, { ...policy, addresses: addressPolicy() }),
      { reason: "address" },
    );
    assert.equal(hits, before);
  });

  test("a name resolving to loopback is refused before connecting", async () => {
    const before = hits;
    const port = (server.address() as AddressInfo).port;
    await assert.rejects(
      fencedFetch(`http://internal.test:${port}/file.txt`, {
        ...policy,
        addresses: addressPolicy(),
        resolve: async () => [{ address: "127.0.0.1", family: 4 }],
      }),
      { reason: "address" },
    );
    assert.equal(hits, before);
  });

  test("redirects, oversize bodies and other statuses are refused", async () => {
    await assert.rejects(fencedFetch(`${origin}/moved`, policy), { reason: "redirected" });
    await assert.rejects(fencedFetch(`${origin}/big`, policy), { reason: "too_large" });
    await assert.rejects(fencedFetch(`${origin}/nothing`, policy), { reason: "status" });
  });

  test("a body that never ends hits the time limit; an abort ends it sooner", async () => {
    await assert.rejects(fencedFetch(`${origin}/slow`, { ...policy, timeoutMs: 200 }), {
      reason: "timeout",
    });
    const controller = new AbortController();
    const pending = fencedFetch(`${origin}/slow`, { ...policy, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(pending, { reason: "aborted" });
  });

  test("credentials in the URL are refused", async () => {
    await assert.rejects(fencedFetch(`http://u:p@127.0.0.1:1/x`, policy), { reason: "protocol" });
  });
});

test("slots cap the fetches in flight: the one over the cap is refused at once, not queued", async () => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.write("a"); // never ends: holds its slot until the time limit
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
  const slots = fetchSlots(2);
  const policy: FencePolicy = {
    addresses: addressPolicy(["127.0.0.1"]),
    protocols: ["http:"],
    maxBytes: 64,
    timeoutMs: 300,
    slots,
  };
  try {
    const held = [fencedFetch(url, policy), fencedFetch(url, policy)];
    await assert.rejects(fencedFetch(url, policy), { reason: "busy" });
    for (const pending of held) await assert.rejects(pending, { reason: "timeout" });
    // Released: the next fetch gets a slot again (and times out like the others).
    await assert.rejects(fencedFetch(url, policy), { reason: "timeout" });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
