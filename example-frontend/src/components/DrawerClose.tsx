/** A drawer's own Close button; shown only where the panel is a drawer (a narrow screen). */
import { Icon } from "./Icon.js";

export function DrawerClose({ onClose }: { onClose(): void }) {
  return (
    <button
      type="button"
      className="icon drawer-close"
      aria-label="Close"
      title="Close"
      onClick={onClose}
    >
      <Icon name="close" />
    </button>
  );
}
