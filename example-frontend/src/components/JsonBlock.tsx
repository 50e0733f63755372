/** A labelled, pretty-printed JSON value; long ones (a list's result) start folded. */
interface Props {
  label: string;
  value: unknown;
  collapsed?: boolean;
}

export function JsonBlock({ label, value, collapsed = false }: Props) {
  const text = JSON.stringify(value, null, 2) ?? String(value);
  const long = text.split("\n").length > 8;
  if (collapsed && long) {
    return (
      <details className="json">
        <summary>{label}</summary>
        <pre>{text}</pre>
      </details>
    );
  }
  return (
    <div className="json">
      <span className="json-label">{label}</span>
      <pre>{text}</pre>
    </div>
  );
}
