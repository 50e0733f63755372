/** The model the chat uses, from `GET /chat/info`, so the header can name it. */
import { useEffect, useState } from "react";
import { apiJson } from "../api.js";

export interface ModelInfo {
  model: string;
  label: string;
  /** True for the offline, rule-based demo model (not an LLM). */
  offline: boolean;
}

export function useModelInfo(): ModelInfo | undefined {
  const [info, setInfo] = useState<ModelInfo>();
  useEffect(() => {
    let cancelled = false;
    apiJson<ModelInfo>("/chat/info").then(
      (data) => {
        if (!cancelled) setInfo(data);
      },
      () => {
        // An older backend without the route: the header just leaves the model out.
      },
    );
    return () => {
      cancelled = true;
    };
  }, []);
  return info;
}
