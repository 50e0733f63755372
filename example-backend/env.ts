/** Checking the example's settings before anything starts, with clear errors. */
import net from "node:net";

export function portFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value.trim() === "") return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name} must be a port number (0-65535), got "${value}".`);
  }
  return port;
}

/** A positive whole number of seconds, or undefined when unset. */
export function secondsFrom(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds <= 0) {
    throw new Error(`${name} must be a whole number of seconds, got "${value}".`);
  }
  return seconds;
}

export function portInUseMessage(host: string, port: number): string {
  return (
    `${host}:${port} is already in use (another \`npm run example\`?). ` +
    "Stop the other server, or set PORT to another port."
  );
}

/**
 * Fails early when the port cannot be bound, before FerretDB starts: a second example would
 * otherwise open the same data directory as the first.
 */
export function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        new Error(
          error.code === "EADDRINUSE"
            ? portInUseMessage(host, port)
            : `Cannot listen on ${host}:${port}: ${error.message}`,
        ),
      );
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
