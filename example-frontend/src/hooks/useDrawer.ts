/**
 * Which side panel is open as a drawer on a narrow screen (the conversations or the todos), or
 * none. Escape closes it; focus moves into a drawer when it opens and back to its button when it
 * closes. On a wide screen both panels are columns and the state has no effect (styles.css).
 */
import { useCallback, useEffect, useRef, useState } from "react";

export type DrawerName = "conversations" | "todos";

export const drawerId = (name: DrawerName) => `drawer-${name}`;
export const drawerToggleId = (name: DrawerName) => `drawer-toggle-${name}`;

export interface Drawer {
  open: DrawerName | undefined;
  toggle(name: DrawerName): void;
  close(): void;
}

const FOCUSABLE = "button:not([disabled]), input, [href], [tabindex]:not([tabindex='-1'])";

export function useDrawer(): Drawer {
  const [open, setOpen] = useState<DrawerName>();
  // The drawer last opened, so closing it gives the focus back to its own button.
  const last = useRef<DrawerName | undefined>(undefined);

  const close = useCallback(() => setOpen(undefined), []);
  const toggle = useCallback(
    (name: DrawerName) => setOpen((current) => (current === name ? undefined : name)),
    [],
  );

  useEffect(() => {
    if (open) {
      last.current = open;
      document.getElementById(drawerId(open))?.querySelector<HTMLElement>(FOCUSABLE)?.focus();
      return;
    }
    const closed = last.current;
    last.current = undefined;
    if (!closed) return;
    // Only when the focus was in the drawer (or left with it): a click elsewhere keeps its focus.
    const active = document.activeElement;
    if (
      !active ||
      active === document.body ||
      document.getElementById(drawerId(closed))?.contains(active)
    ) {
      document.getElementById(drawerToggleId(closed))?.focus();
    }
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") setOpen(undefined);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  return { open, toggle, close };
}
