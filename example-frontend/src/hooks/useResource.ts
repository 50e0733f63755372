/**
 * A list loaded from the API, with `reload()`. Loads are numbered so that a slow, older answer
 * never overwrites a newer one (a reload right after a tool call must win).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { apiJson } from "../api.js";

export interface Resource<T> {
  items: T[];
  loading: boolean;
  error: string | undefined;
  reload(): void;
}

/**
 * `path` undefined: nothing to load (an empty list). `key`: loads again when it changes, for a
 * list that depends on more than its path (the workspace a call is sent in).
 */
export function useResource<T>(path: string | undefined, key?: string): Resource<T> {
  const [items, setItems] = useState<T[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string>();
  const latest = useRef(0);

  const reload = useCallback(() => {
    latest.current += 1;
    const load = latest.current;
    if (path === undefined) {
      setItems([]);
      setError(undefined);
      setLoading(false);
      return;
    }
    setLoading(true);
    apiJson<T[]>(path).then(
      (data) => {
        if (load !== latest.current) return;
        setItems(data);
        setError(undefined);
        setLoading(false);
      },
      (reason: unknown) => {
        if (load !== latest.current) return;
        setError(reason instanceof Error ? reason.message : String(reason));
        setLoading(false);
      },
    );
  }, [path]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` changes what the path answers
  useEffect(() => {
    reload();
  }, [reload, key]);

  return { items, loading, error, reload };
}
