/**
 * An assistant's text as Markdown (react-markdown + remark-gfm: lists, tables, code blocks,
 * links). It builds React elements, never innerHTML, and runs no eval, so it works under the
 * page's strict CSP. Raw HTML in the text shows as text; link URLs go through react-markdown's
 * safe-protocol filter (no `javascript:`); links open in a new tab without handing it this page
 * (`rel="noopener noreferrer"`); images are shown as links, so a reply never makes the page
 * fetch from another site.
 */
import type { ComponentProps } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

function Link({ node: _node, ...props }: ComponentProps<"a"> & { node?: unknown }) {
  return <a {...props} target="_blank" rel="noopener noreferrer" />;
}

function ImageAsLink({ src, alt }: ComponentProps<"img">) {
  const href = typeof src === "string" ? src : undefined;
  const label = alt || href || "image";
  return href ? <Link href={href}>{label}</Link> : <span>{label}</span>;
}

function Table({ node: _node, ...props }: ComponentProps<"table"> & { node?: unknown }) {
  // Wide tables scroll inside the message, not the page.
  return (
    <div className="table-scroll">
      <table {...props} />
    </div>
  );
}

const COMPONENTS: Components = { a: Link, img: ImageAsLink, table: Table };

export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={COMPONENTS}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
