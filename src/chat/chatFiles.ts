/**
 * Who fetches a file a chat message names by URL. Never the AI SDK on its own: left to itself it
 * downloads every URL a model cannot take, and its guard reads the host name as text, so a name
 * that resolves to an internal address reached it (SSRF, issue 33.1). streamText gets the
 * download function below, so every URL the SDK would fetch (a user's file, a tool result's
 * file, a file the model generated) goes through it.
 *
 * By default it fetches nothing: POST /chat takes files inline only (chatParts.ts refuses other
 * URLs with a 400 first), so a URL that still arrives here is refused.
 */
import { DownloadError, type Experimental_DownloadFunction } from "ai";

/** chatPlugin's default: every URL refused, nothing fetched. */
export const refuseDownloads: Experimental_DownloadFunction = async (requests) => {
  const first = requests[0];
  if (!first) return [];
  throw new DownloadError({
    url: first.url.href,
    message: "This server does not fetch remote files; files are taken inline only.",
  });
};
