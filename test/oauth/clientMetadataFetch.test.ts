/**
 * The Client ID Metadata Document fetch on its own: the address policy (special-use ranges, the
 * allow list, IPv4-mapped IPv6), refusal after DNS resolution, and the pinning that defeats DNS
 * rebinding (the name is resolved once and the connection goes to that vetted address), against
 * a real https host with a certificate made at test time.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { addressPolicy } from "../../src/http/addressPolicy.js";
import { freshnessSeconds } from "../../src/oauth/clientMetadataDocument.js";
import {
  fetchMetadataDocument,
  type MetadataFetchPolicy,
  metadataDocumentUrl,
} from "../../src/oauth/clientMetadataFetch.js";
import { ClientMetadataRefusal } from "../../src/oauth/clientMetadataRefusal.js";
import { json, useMetadataHost } from "./metadataHost.js";

describe("the address policy", () => {
  const policy = addressPolicy();
  for (const address of [
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "::1",
    "::",
    "fe80::1",
    "fd12:3456::1",
    "::ffff:127.0.0.1",
    "::ffff:a00:1",
    "64:ff9b::a00:1",
    // Missed by the hand-kept table (issue 33): IPv4-compatible ::/96, documentation 3fff::/20,
    // segment routing 5f00::/16, and IPv4-translated ::ffff:0:0:0/96.
    "::a00:1",
    "::10.0.0.1",
    "::8.8.8.8",
    "3fff::1",
    "3fff:fff::1",
    "5f00::1",
    "5f00:ffff::1",
    "::ffff:0:a00:1",
    // IPv4-mapped forms are judged by the IPv4 address they carry.
    "::ffff:192.168.0.1",
    "::ffff:169.254.169.254",
    "::ffff:0:0",
    "2001:db8::1",
    "2002:a00:1::",
    "2001::1",
    "fec0::1",
    "ff02::1",
    "198.18.0.1",
    "240.0.0.1",
    "255.255.255.255",
  ]) {
    test(`refuses ${address}`, () => assert.equal(policy.refuses(address), true));
  }
  for (const address of [
    "93.184.215.14",
    "8.8.8.8",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "2a00:1450:4001:82a::200e",
    "4000::1",
  ]) {
    test(`allows public ${address}`, () => assert.equal(policy.refuses(address), false));
  }
  test("the allow list exempts exactly what it names", () => {
    const allowing = addressPolicy(["127.0.0.1", "10.9.0.0/16"]);
    assert.equal(allowing.refuses("127.0.0.1"), false);
    assert.equal(allowing.refuses("127.0.0.2"), true);
    assert.equal(allowing.refuses("10.9.200.1"), false);
    assert.equal(allowing.refuses("10.8.0.1"), true);
    assert.throws(() => addressPolicy(["not-an-ip"]), /not an IP address/);
  });
});

test("a client_id must be https with a path, no fragment or credentials", () => {
  assert.equal(metadataDocumentUrl("https://client.example/m.json").host, "client.example");
  for (const bad of [
    "http://client.example/m.json",
    "https://client.example/",
    "https://client.example/m.json#x",
    "https://user:pw@client.example/m.json",
    "not a url",
  ]) {
    assert.throws(() => metadataDocumentUrl(bad), { code: "client_metadata_url" }, bad);
  }
});

test("Cache-Control decides the freshness, within the ceiling", () => {
  assert.equal(freshnessSeconds(undefined, 300, 86_400), 300);
  assert.equal(freshnessSeconds("max-age=60", 300, 86_400), 60);
  assert.equal(freshnessSeconds("public, s-maxage=30, max-age=60", 300, 86_400), 30);
  assert.equal(freshnessSeconds("max-age=999999", 300, 86_400), 86_400);
  assert.equal(freshnessSeconds("no-store", 300, 86_400), 0);
  assert.equal(freshnessSeconds("no-cache, max-age=60", 300, 86_400), 0);
});

/**
 * Every fetch failure is the one `client_metadata_unreachable` refusal with one message; what
 * happened is only in its log detail.
 */
const unfetchable = (detail: RegExp) => (error: unknown) => {
  assert.ok(error instanceof ClientMetadataRefusal, String(error));
  assert.equal(error.code, "client_metadata_unreachable");
  assert.match(error.message, /could not be fetched as a JSON document$/);
  assert.match(error.extra.detail ?? "", detail);
  return true;
};

describe("fetching through the vetted lookup", () => {
  const host = useMetadataHost();
  let base: MetadataFetchPolicy;
  before(async () => {
    host.route("/client.json", json({ client_id: "x" }, { "cache-control": "max-age=60" }));
    base = {
      addresses: addressPolicy(["127.0.0.1"]),
      ca: [host.cert],
      maxBytes: 5120,
      timeoutMs: 3000,
    };
  });

  test("a name that resolves to a private address is refused before any connection", async () => {
    await assert.rejects(
      fetchMetadataDocument(new URL(`https://cimd.test:${host.port}/client.json`), {
        ...base,
        resolve: async () => [{ address: "10.0.0.5", family: 4 }],
      }),
      unfetchable(/cimd\.test resolves to 10\.0\.0\.5/),
    );
    assert.equal(host.hits("/client.json"), 0);
  });

  test("one private address among several refuses the name", async () => {
    await assert.rejects(
      fetchMetadataDocument(new URL(`https://cimd.test:${host.port}/client.json`), {
        ...base,
        resolve: async () => [
          { address: "127.0.0.1", family: 4 },
          { address: "192.168.0.9", family: 4 },
        ],
      }),
      unfetchable(/^address: /),
    );
  });

  test("the connection goes to the address vetted once (a rebinding resolver cannot switch it)", async () => {
    // The first answer is allowed; any later one would point at the metadata service. The
    // name exists nowhere else, so a success proves the socket used the vetted answer.
    let lookups = 0;
    const rebinding = async () => {
      lookups++;
      return [{ address: lookups === 1 ? "127.0.0.1" : "169.254.169.254", family: 4 }];
    };
    const fetched = await fetchMetadataDocument(
      new URL(`https://cimd.test:${host.port}/client.json`),
      { ...base, resolve: rebinding },
    );
    assert.deepEqual(fetched.body, { client_id: "x" });
    assert.equal(fetched.cacheControl, "max-age=60");
    assert.equal(lookups, 1);
  });

  test("without the test CA the self-signed host is not trusted", async () => {
    await assert.rejects(
      fetchMetadataDocument(new URL(`${host.origin}/client.json`), { ...base, ca: undefined }),
      unfetchable(/certificate/),
    );
  });

  test("a declared Content-Length over the limit is refused before the body", async () => {
    host.route("/declared.json", (_req, res) => {
      const body = JSON.stringify({ client_id: "x", padding: "x".repeat(200) });
      res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
      res.end(body);
    });
    await assert.rejects(
      fetchMetadataDocument(new URL(`${host.origin}/declared.json`), { ...base, maxBytes: 100 }),
      unfetchable(/^too_large: /),
    );
  });
});
