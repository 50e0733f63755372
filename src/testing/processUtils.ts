// Small helpers the FerretDB binary builder and server share: logging, sleeping, error codes and
// the tail of a process's output.
export const OUTPUT_TAIL_BYTES = 16 * 1024;

export type LogFn = (message: string) => void;

export const defaultLog: LogFn = (message) => {
  process.stderr.write(`${message}\n`);
};

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function errorCode(error: unknown): string | undefined {
  if (error instanceof Error && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return undefined;
}

export function lastLines(text: string, count: number): string {
  const lines = text.trimEnd().split("\n");
  return lines.slice(-count).join("\n");
}
