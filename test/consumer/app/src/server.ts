// The app's entry point, as the README's server: JWT_SECRET=… MONGODB_URI=… npx tsx src/server.ts
// The smoke test builds the app itself; this file is type-checked so the server shape stays true.
import { connectDatabase } from "terreno-mcp";
import { buildApp } from "./app.js";

const secret = process.env.JWT_SECRET;
if (!secret || secret.length < 32) throw new Error("Set JWT_SECRET to 32+ random characters");
await connectDatabase(process.env.MONGODB_URI ?? "mongodb://127.0.0.1:27017/consumer");
const { url } = await buildApp({ jwtSecret: secret }).start({ port: 4000 });
console.log(`REST at ${url}/projects, MCP at ${url}/mcp`);
