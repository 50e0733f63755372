/** One row of the contract table: what to do, on every surface, and what must come back. */
import type { Driver } from "../drivers/types.js";
import type { World } from "../world.js";

export interface CaseContext {
  driver: Driver;
  world: World;
  /** Unique per driver run, for names that must not collide across surfaces. */
  tag: string;
}

export interface ContractCase {
  /** The group it belongs to, e.g. "permissions". */
  group: string;
  name: string;
  /** Also run by the smoke passes (MCP v1 and v2-legacy clients, AI through generateText). */
  smoke?: boolean;
  run(ctx: CaseContext): Promise<void>;
}
