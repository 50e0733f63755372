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

export function useResource<T>(path: string): Resource<T> {
  const [items, setItems] = useState<T[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string>();
  const latest = useRef(0);

  const reload = useCallback(() => {
    latest.current += 1;
    const load = latest.current;
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

  useEffect(() => {
    reload();
  }, [reload]);

  return { items, loading, error, reload };
}
