/** Where the example keeps its local state: `example-backend/.data` (gitignored). */
import path from "node:path";
import { fileURLToPath } from "node:url";

export const EXAMPLE_DIR = path.dirname(fileURLToPath(import.meta.url));
export const DATA_DIR = path.join(EXAMPLE_DIR, ".data");

/** A path for messages, relative to the working directory when that is shorter. */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith("..") ? relative : file;
}
