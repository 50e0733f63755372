/** One line per request: method, path, status and duration. */
import type { NextFunction, Request, Response } from "express";

export type LogLine = (line: string) => void;

export function requestLogger(log: LogLine) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log(`${req.method} ${req.originalUrl.split("?")[0]} ${res.statusCode} ${ms.toFixed(1)}ms`);
    });
    next();
  };
}
