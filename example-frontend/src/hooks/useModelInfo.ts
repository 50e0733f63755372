/**
 * What `GET /chat/info` says about the chat: the model (the header names it) and the longest
 * message the plugin accepts (the composer counts against it). Asked once per page load.
 */
import { useEffect, useState } from "react";
import { apiJson } from "../api.js";

export interface ModelInfo {
  model: string;
  label: string;
  /** True for the offline, rule-based demo model (not an LLM). */
  offline: boolean;
  /** Characters of text one message may have; absent from an older backend. */
  maxMessageLength?: number;
}

let asked: Promise<ModelInfo> | undefined;

/** One request for every component that asks; a failed one is asked again next time. */
function fetchInfo(): Promise<ModelInfo> {
  asked ??= apiJson<ModelInfo>("/chat/info").catch((reason: unknown) => {
    asked = undefined;
    throw reason;
  });
  return asked;
}

export function useModelInfo(): ModelInfo | undefined {
  const [info, setInfo] = useState<ModelInfo>();
  useEffect(() => {
    let cancelled = false;
    fetchInfo().then(
      (data) => {
        if (!cancelled) setInfo(data);
      },
      () => {
        // An older backend without the route: the header leaves the model out, and the
        // composer counts nothing (the server still refuses a message that is too long).
      },
    );
    return () => {
      cancelled = true;
    };
  }, []);
  return info;
}
