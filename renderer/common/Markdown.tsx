/** Spec descriptions are untrusted Markdown: rendered with marked, then sanitised with DOMPurify. */
import { useMemo } from "react";
import { marked } from "marked";
import DOMPurify from "dompurify";
import "./Markdown.css";

// Links from a spec open outside the app, never inside it.
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

const MAX_CHARS = 200_000;

export function renderMarkdown(text: string, inline = false): string {
  const source = text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}\n\n…` : text;
  const html = inline ? marked.parseInline(source, { async: false }) : marked.parse(source, { async: false, gfm: true });
  return DOMPurify.sanitize(html, { FORBID_TAGS: ["style", "form", "input", "img"], FORBID_ATTR: ["style"] });
}

export function Markdown({ text, inline = false, className = "" }: { text: string; inline?: boolean; className?: string }) {
  const html = useMemo(() => renderMarkdown(text, inline), [text, inline]);
  const Tag = inline ? "span" : "div";
  return <Tag className={`markdown ${className}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
