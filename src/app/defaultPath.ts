/** The path a model router is mounted at when `register(router)` names none. */
import pluralize from "pluralize";

/** `Todo` → `/todos`, `FoodItem` → `/food-items`. */
export function defaultPathFor(modelName: string): string {
  const kebab = modelName.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
  const parts = kebab.split("-");
  parts[parts.length - 1] = pluralize(parts[parts.length - 1]);
  return `/${parts.join("-")}`;
}
