/**
 * Who fetches a file a chat message names by URL. Never the AI SDK on its own: left to itself it
 * downloads every URL a model cannot take, and its guard reads the host name as text, so a name
 * that resolves to an internal address reached it (SSRF, issue 33.1). streamText gets the
 * download function below, so every URL the SDK would fetch (a user's file, a tool result's
 * file, a file the model generated) goes through it, and it fetches nothing itself.
 *
 * By default nothing is fetched: POST /chat takes files inline only (chatParts.ts refuses other
 * URLs with a 400 first). With `chatPlugin({remoteFiles})`, a user's files named by URL are
 * fetched before the model runs, through the same outbound fence as a Client ID Metadata
 * Document (src/http/fencedFetch.ts: one DNS resolution, special-use addresses refused, the
 * socket pinned to the vetted address, no redirects, a byte and a time limit, a cap on fetches in
 * flight); a file that cannot be fetched is a 400 naming its part, with one answer whatever the
 * reason (the reason, which would tell which hosts and ports answer, goes to the log). The model
 * then gets the bytes, never the URL.
 */
import { DownloadError, type Experimental_DownloadFunction } from "ai";
import { defineErrorCode, TerrenoError, validationFailed } from "../core/errors.js";
import type { Logger } from "../core/logger.js";
import { addressPolicy } from "../http/addressPolicy.js";
import { type FencePolicy, FenceRefusal, fencedFetch, fetchSlots } from "../http/fencedFetch.js";
import type { FileUrlPolicy, RemoteFilePart } from "./chatParts.js";

/** `chatPlugin({remoteFiles})`: a user's files may be named by http(s) URL, fetched in the fence. */
export interface ChatRemoteFilesOptions {
  /** Bytes one file may have. Default 5 MiB. */
  maxBytes?: number;
  /** Milliseconds one fetch may take, from connecting to the last byte. Default 10,000. */
  timeoutMs?: number;
  /** Remote files one request may name (the history included). Default 10. */
  maxFiles?: number;
  /** Remote fetches in flight at once, across requests; beyond it a request gets a 503. Default 8. */
  maxConcurrent?: number;
  /** Take `http:` URLs as well as `https:`. Default false. */
  allowHttp?: boolean;
  /**
   * Addresses the fence lets through although they are special-use (IPs or CIDR ranges, e.g.
   * an internal file server's `10.1.2.3`). Default none: loopback, private, link-local and every
   * other special-use address are refused.
   */
  allowAddresses?: string[];
}

/** A fetched file, by its URL's `href`. */
type Fetched = Map<string, { data: Uint8Array; mediaType: string | undefined }>;

const REMOTE_FILES_BUSY = defineErrorCode("remote_files_busy", {
  status: 503,
  title: "Remote Files Busy",
});

const NOT_FETCHED = "could not be fetched";

/** The chat's files, as one plugin's `remoteFiles` option sets them. */
export interface ChatFiles {
  /** How chatParts.ts judges a file's URL. */
  urls: FileUrlPolicy;
  /** Fetches the remote files a request names; a 400 naming the parts that could not be. */
  fetchAll(parts: readonly RemoteFilePart[], logger: Logger): Promise<Fetched>;
  /** streamText's download function: the files fetched, else refused. */
  download(fetched: Fetched): Experimental_DownloadFunction;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const chosen = value ?? fallback;
  if (!Number.isInteger(chosen) || chosen < 1) {
    throw new Error(`chatPlugin: \`remoteFiles.${name}\` must be a positive integer.`);
  }
  return chosen;
}

/** Refuses every URL the SDK asks about that was not fetched before the model ran. */
function downloadFrom(fetched: Fetched): Experimental_DownloadFunction {
  return async (requests) =>
    requests.map(({ url }) => {
      const file = fetched.get(url.href);
      if (!file) {
        throw new DownloadError({
          url: url.href,
          message: "This server fetches no files but a user's own, before the model runs.",
        });
      }
      return file;
    });
}

/** The chat's files for `option` (`chatPlugin({remoteFiles})`): inline only when absent. */
export function chatFiles(option: ChatRemoteFilesOptions | true | undefined): ChatFiles {
  if (option === undefined) {
    return {
      urls: { remoteProtocols: [] },
      fetchAll: async () => new Map(),
      download: downloadFrom,
    };
  }
  const options = option === true ? {} : option;
  const maxFiles = positive(options.maxFiles, 10, "maxFiles");
  const policy: FencePolicy = {
    addresses: addressPolicy(options.allowAddresses ?? []),
    protocols: options.allowHttp ? ["https:", "http:"] : ["https:"],
    maxBytes: positive(options.maxBytes, 5 * 1024 * 1024, "maxBytes"),
    timeoutMs: positive(options.timeoutMs, 10_000, "timeoutMs"),
    // One count for the plugin: a slow host holds at most these sockets, whoever asks.
    slots: fetchSlots(positive(options.maxConcurrent, 8, "maxConcurrent")),
  };

  async function fetchOne(part: RemoteFilePart, logger: Logger) {
    try {
      const { bytes, contentType } = await fencedFetch(part.url, policy);
      return { data: new Uint8Array(bytes), mediaType: contentType?.split(";")[0]?.trim() };
    } catch (error) {
      if (!(error instanceof FenceRefusal)) throw error;
      logger.warn(
        { reason: error.reason, detail: error.message, field: part.field },
        "chat: a remote file was not fetched",
      );
      return error;
    }
  }

  return {
    urls: { remoteProtocols: policy.protocols ?? [] },
    download: downloadFrom,
    async fetchAll(parts, logger) {
      // The history names the same file again each turn: fetched once per request.
      const byUrl = new Map<string, RemoteFilePart[]>();
      for (const part of parts)
        byUrl.set(part.url.href, [...(byUrl.get(part.url.href) ?? []), part]);
      if (byUrl.size > maxFiles) {
        const over = [...byUrl.values()][maxFiles]?.[0];
        throw validationFailed(
          `A request may name at most ${maxFiles} remote files; send the others inline.`,
          over ? { [over.field]: `more than ${maxFiles} remote files` } : {},
        );
      }
      const fetched: Fetched = new Map();
      const problems: Record<string, string> = {};
      let busy = false;
      const results = await Promise.all(
        [...byUrl.values()].map(async (same) => [same, await fetchOne(same[0], logger)] as const),
      );
      for (const [same, result] of results) {
        if (!(result instanceof FenceRefusal)) fetched.set(same[0].url.href, result);
        else if (result.reason === "busy") busy = true;
        else for (const part of same) problems[part.field] = NOT_FETCHED;
      }
      const first = Object.keys(problems)[0];
      if (first) {
        throw validationFailed(
          `${first}: the file ${NOT_FETCHED}. A remote file must be public, answer 200 without a redirect, and be at most ${policy.maxBytes} bytes.`,
          problems,
        );
      }
      if (busy) {
        throw new TerrenoError(
          REMOTE_FILES_BUSY,
          "Too many remote files are being fetched right now; send the message again shortly.",
          undefined,
          { headers: { "Retry-After": "5" } },
        );
      }
      return fetched;
    },
  };
}
