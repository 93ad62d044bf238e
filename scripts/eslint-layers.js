// The layering rule of eslint.config.js, after VS Code's `code-import-patterns`:
// every file matches one layer (the first whose `target` matches its path),
// and each of its imports of our own files must match one of that layer's
// `allow` patterns. Imports of packages and Node built-ins are left to
// `no-restricted-imports`; this rule is about which of our folders may reach
// which, so a file's folder says what it may touch.
//
// Patterns are repository-relative: `dir/**` is everything under dir, `dir/*`
// the files directly in it, anything else one exact file.
import { isAbsolute, posix, relative, sep } from "node:path";

/** @param {string} pattern */
function toRegExp(pattern) {
  const parts = pattern.split("/");
  const source = parts
    .map((part, i) => {
      const last = i === parts.length - 1;
      if (part === "**") return last ? ".*" : "(?:.*/)?";
      return part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*") + (last ? "" : "/");
    })
    .join("");
  return new RegExp(`^${source}$`);
}

/** @param {string} path @param {string[]} patterns */
function matchesAny(path, patterns) {
  return patterns.some((pattern) => toRegExp(pattern).test(path));
}

/** Where a relative or absolute specifier points, repository-relative; undefined for packages and built-ins. */
function resolveSpecifier(root, file, specifier) {
  if (specifier.startsWith(".")) return posix.normalize(posix.join(posix.dirname(file), specifier));
  if (isAbsolute(specifier)) return relative(root, specifier).split(sep).join("/");
  return undefined;
}

/** @type {import("eslint").Rule.RuleModule} */
export const layersRule = {
  meta: {
    type: "problem",
    docs: { description: "Each folder imports only from the folders its layer allows." },
    schema: [
      {
        type: "object",
        properties: {
          layers: {
            type: "array",
            items: {
              type: "object",
              properties: {
                target: { type: "string" },
                allow: { type: "array", items: { type: "string" } },
                /** Extra patterns for this layer's *.test.ts files. */
                allowInTests: { type: "array", items: { type: "string" } },
                why: { type: "string" },
              },
              required: ["target", "allow"],
              additionalProperties: false,
            },
          },
        },
        required: ["layers"],
        additionalProperties: false,
      },
    ],
    messages: {
      outside: "{{file}} may not import {{imported}}: the layer {{target}} imports only {{allowed}}.{{why}}",
    },
  },
  create(context) {
    const root = context.cwd;
    const file = relative(root, context.filename).split(sep).join("/");
    const layer = context.options[0].layers.find((l) => toRegExp(l.target).test(file));
    if (!layer) return {};
    const isTest = /\.test\.[cm]?[jt]sx?$/.test(file);
    const allowed = [...layer.allow, ...(isTest ? (layer.allowInTests ?? []) : [])];

    /** @param {import("estree").Node | null | undefined} source */
    function check(source) {
      if (!source || source.type !== "Literal" || typeof source.value !== "string") return;
      const imported = resolveSpecifier(root, file, source.value);
      if (imported === undefined || matchesAny(imported, allowed)) return;
      context.report({
        node: source,
        messageId: "outside",
        data: { file, imported, target: layer.target, allowed: allowed.join(", "), why: layer.why ? ` ${layer.why}` : "" },
      });
    }

    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export const layersPlugin = { rules: { layers: layersRule } };
