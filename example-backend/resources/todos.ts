/**
 * `/todos`: each user sees and changes only their own todos, over REST and as the MCP tools
 * todos_list, todos_read, todos_create, todos_update and todos_delete.
 */
import {
  type CrudOptions,
  IsAuthenticated,
  IsOwner,
  modelRouter,
  OwnerQueryFilter,
} from "../../src/index.js";
import { Todo } from "../models/Todo.js";

export const todoOptions: CrudOptions = {
  permissions: {
    list: [IsAuthenticated],
    read: [IsOwner],
    create: [IsAuthenticated],
    update: [IsOwner],
    delete: [IsOwner],
  },
  queryFilter: OwnerQueryFilter, // lists show only the caller's todos
  queryFields: ["title", "completed", "dueDate", "tags"],
  sort: "-createdAt",
  readOnlyFields: ["ownerId"], // clients can never set it...
  preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }), // ...the server does
  mcp: {
    methods: ["list", "read", "create", "update", "delete"],
    excludeFields: ["internalNote"], // never shown to, nor writable by, an AI client
    maxLimit: 20,
  },
};

export const todoRouter = () => modelRouter(Todo, todoOptions);
