/**
 * `/foods`: any signed-in user may list and read every entry (with the owner's name only);
 * only the owner may change or delete one. MCP gets the default tools: foods_list, foods_read.
 */
import { IsAuthenticated, IsOwner, type ModelRouterOptions, modelRouter } from "../../src/index.js";
import { Food } from "../models/Food.js";

const foodOptions: ModelRouterOptions<typeof Food> = {
  permissions: {
    list: [IsAuthenticated],
    read: [IsAuthenticated],
    create: [IsAuthenticated],
    update: [IsOwner],
    delete: [IsOwner],
  },
  queryFields: ["name", "calories", "eatenAt"],
  sort: "-eatenAt",
  populatePaths: [{ path: "ownerId", fields: ["name"] }],
  readOnlyFields: ["ownerId"],
  preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }),
  mcp: {},
};

export const foodRouter = () => modelRouter(Food, foodOptions);
