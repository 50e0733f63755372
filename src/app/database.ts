/**
 * Connects the app's Mongoose (or one of its connections) with timeouts tuned so a database
 * outage fails fast (a 503 within seconds) instead of buffering for 10 s and waiting 30 s for
 * server selection. It connects the instance the app's models were made with, never a copy.
 */
import mongoose, { type Connection, type Mongoose } from "mongoose";

export interface DatabaseOptions {
  /** How long a command may wait for a server. Default 2000 ms. */
  serverSelectionTimeoutMS?: number;
  /** How long Mongoose buffers commands while disconnected. Default 2000 ms. */
  bufferTimeoutMS?: number;
  /**
   * The Mongoose instance to connect: the one the app's models were made with, e.g.
   * `User.base`. Default: the default instance of the `mongoose` package the app installed.
   */
  mongoose?: Mongoose;
  /**
   * A connection to open instead, e.g. one from `mongoose.createConnection()` that the app's
   * models live on (`User.db`). Its instance's default connection is left alone.
   */
  connection?: Connection;
}

function connectOptions(options: DatabaseOptions) {
  return {
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 2000,
    heartbeatFrequencyMS: 1000,
    connectTimeoutMS: 3000,
  };
}

/** Opens `options.connection` and resolves with it. */
export async function connectDatabase(
  uri: string,
  options: DatabaseOptions & { connection: Connection },
): Promise<Connection>;
/** Connects `options.mongoose` (default: the app's `mongoose`) and resolves with it. */
export async function connectDatabase(uri: string, options?: DatabaseOptions): Promise<Mongoose>;
export async function connectDatabase(
  uri: string,
  options: DatabaseOptions = {},
): Promise<Mongoose | Connection> {
  const bufferTimeoutMS = options.bufferTimeoutMS ?? 2000;
  if (options.connection) {
    // A connection-level setting: the instance's other connections keep theirs.
    options.connection.set("bufferTimeoutMS", bufferTimeoutMS);
    return options.connection.openUri(uri, connectOptions(options));
  }
  const instance = options.mongoose ?? mongoose;
  instance.set("bufferTimeoutMS", bufferTimeoutMS);
  return instance.connect(uri, connectOptions(options));
}
