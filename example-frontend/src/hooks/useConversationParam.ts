/**
 * The open conversation's id, kept in the address (`?c=<id>`) so that a reload, or a copied
 * link, opens the same conversation. replaceState: switching conversations is not navigation
 * worth a Back step.
 */
import { useCallback, useState } from "react";

const PARAM = "c";

function fromLocation(): string | undefined {
  return new URLSearchParams(window.location.search).get(PARAM) ?? undefined;
}

export function useConversationParam(): [string | undefined, (id: string | undefined) => void] {
  const [id, setId] = useState(fromLocation);
  const update = useCallback((next: string | undefined) => {
    const url = new URL(window.location.href);
    if (next) url.searchParams.set(PARAM, next);
    else url.searchParams.delete(PARAM);
    window.history.replaceState(null, "", url);
    setId(next);
  }, []);
  return [id, update];
}
