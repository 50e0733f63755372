/**
 * Connects Mongoose with timeouts tuned so a database outage fails fast (a 503 within
 * seconds) instead of buffering for 10 s and waiting 30 s for server selection.
 */
import mongoose from "mongoose";

export interface DatabaseOptions {
  /** How long a command may wait for a server. Default 2000 ms. */
  serverSelectionTimeoutMS?: number;
  /** How long Mongoose buffers commands while disconnected. Default 2000 ms. */
  bufferTimeoutMS?: number;
}

export async function connectDatabase(
  uri: string,
  options: DatabaseOptions = {},
): Promise<typeof mongoose> {
  mongoose.set("bufferTimeoutMS", options.bufferTimeoutMS ?? 2000);
  return mongoose.connect(uri, {
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 2000,
    heartbeatFrequencyMS: 1000,
    connectTimeoutMS: 3000,
  });
}
