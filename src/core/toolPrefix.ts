/**
 * The default prefix of a model's tool names (`todos_list`, `todos_complete`): the pluralized
 * snake_case model name. A Resource computes its prefix once, when it is defined.
 */
import pluralize from "pluralize";

/** `FoodItem` → `food_items`, `HTTPLog` → `http_logs`. */
export function defaultToolPrefix(modelName: string): string {
  const snake = modelName
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toLowerCase()
    .replace(/^_+|_+$/g, "");
  const parts = snake.split("_");
  parts[parts.length - 1] = pluralize(parts[parts.length - 1]);
  return parts.join("_");
}
