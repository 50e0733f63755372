/**
 * `/todos`: each user sees and changes only their own todos, over REST and as the MCP tools
 * todos_list, todos_read, todos_create, todos_update and todos_delete, plus the action
 * todos_complete (`POST /todos/:id/complete`).
 */

import { z } from "zod";
import {
  IsAuthenticated,
  IsOwner,
  type ModelRouterOptions,
  modelRouter,
  OwnerQueryFilter,
} from "../../src/index.js";
import { Todo } from "../models/Todo.js";

const todoOptions: ModelRouterOptions<typeof Todo> = {
  permissions: {
    list: [IsAuthenticated],
    read: [IsOwner],
    create: [IsAuthenticated],
    update: [IsOwner],
    delete: [IsOwner],
  },
  queryFilter: OwnerQueryFilter, // lists show only the caller's todos
  queryFields: ["title", "completed", "dueDate", "priority", "tags"], // every scalar also sorts
  sort: "-createdAt",
  readOnlyFields: ["ownerId", "completedAt"], // clients can never set them...
  preCreate: (body, req) => ({ ...body, ownerId: req.user?.id }), // ...the server does
  mcp: {
    methods: ["list", "read", "create", "update", "delete"],
    excludeFields: ["internalNote"], // never shown to, nor writable by, an AI client
    maxLimit: 20,
  },
  actions: {
    // Idempotent: completing a completed todo keeps its first completedAt.
    complete: {
      scope: "instance",
      description: "Marks a todo completed and records when (completing it again changes nothing).",
      input: z.object({}).strict(),
      permissions: [IsOwner],
      annotations: { idempotentHint: true, destructiveHint: false },
      handler: async (_ctx, todo) => {
        if (!todo.completed || !todo.completedAt) {
          todo.completed = true;
          todo.completedAt ??= new Date();
          await todo.save();
        }
        return todo;
      },
    },
  },
};

export const todoRouter = () => modelRouter(Todo, todoOptions);
