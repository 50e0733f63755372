/**
 * Small line icons drawn inline, so they look the same on every machine (an emoji needs an
 * emoji font, which a server or CI browser often lacks) and no asset is fetched. Decorative:
 * the buttons that hold them carry the accessible name.
 */
const PATHS = {
  thumbUp:
    "M3 10h4v11H3z M7 10l4-8c1.7 0 3 1.3 3 3v4h5.5c1.4 0 2.4 1.3 2.1 2.6l-1.6 7c-.2.9-1 1.4-1.9 1.4H7",
  pencil: "M4 20h4L19 9l-4-4L4 16z M13 7l4 4",
  trash: "M4 7h16 M9 7V4h6v3 M6 7l1 13h10l1-13 M10 11v6 M14 11v6",
  menu: "M4 6h16 M4 12h16 M4 18h16",
  checklist: "M4 6l1.5 1.5L8 5 M4 12l1.5 1.5L8 11 M4 18l1.5 1.5L8 17 M11 6h9 M11 12h9 M11 18h9",
  close: "M6 6l12 12 M18 6L6 18",
} as const;

interface Props {
  name: keyof typeof PATHS | "thumbDown";
}

export function Icon({ name }: Props) {
  const down = name === "thumbDown";
  return (
    <svg
      className="icon-svg"
      viewBox="0 0 24 24"
      width="16"
      height="16"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      <path d={PATHS[down ? "thumbUp" : name]} transform={down ? "rotate(180 12 12)" : undefined} />
    </svg>
  );
}
