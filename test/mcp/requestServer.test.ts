/**
 * RequestServer (src/mcp/requestServer.ts) skips the stack of the "Connection closed" error a
 * per-request server builds on every close (issue #26). It must change nothing anyone sees: a
 * handler still in flight when the connection closes is aborted with the SDK's error, stack and
 * all; an idle close leaves the global stack limit as it was, also for the close callback.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { RequestServer } from "../../src/mcp/requestServer.js";

const info = { name: "t", version: "1" };
const options = { capabilities: { tools: { listChanged: false } } };

async function connected() {
  const server = new RequestServer(info, options);
  const [client, transport] = InMemoryTransport.createLinkedPair();
  await server.connect(transport);
  await client.start();
  return { server, client };
}

describe("RequestServer: a cheaper close, nothing else changed", () => {
  it("aborts a handler in flight with the SDK's Connection closed error, with its stack", async () => {
    const { server, client } = await connected();
    const reason = new Promise<unknown>((resolve) => {
      server.setRequestHandler("tools/list", (_request, ctx) => {
        ctx.mcpReq.signal.addEventListener("abort", () => resolve(ctx.mcpReq.signal.reason));
        return new Promise(() => {});
      });
    });
    await client.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    await new Promise((resolve) => setImmediate(resolve));
    await server.close();
    const error = (await reason) as Error;
    assert.equal(error.name, "SdkError");
    assert.match(error.message, /Connection closed/);
    assert.match(String(error.stack), /\n\s+at /, "the error keeps its stack");
  });

  it("closes idle with the stack limit untouched, also inside the close callback", async () => {
    const { server } = await connected();
    const before = Error.stackTraceLimit;
    let inCallback: number | undefined;
    server.onclose = () => {
      inCallback = Error.stackTraceLimit;
    };
    await server.close();
    assert.equal(inCallback, before);
    assert.equal(Error.stackTraceLimit, before);
  });
});
