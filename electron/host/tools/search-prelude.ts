/**
 * The guest side of `specs.<name>`: trusted JavaScript the sandbox runs before
 * a search program. It offers the familiar `paths[path][method]` shape (one
 * read brings every operation's head; parameters, bodies and responses are
 * read and expanded only when touched) and cheap helpers for big specs.
 */
export function searchPrelude(apiNames: string[]): string {
  return `(() => {
  const read = __host.read;
  const names = ${JSON.stringify(apiNames)};
  const check = (value) => {
    if (value && typeof value === "object" && typeof value.$error === "string") throw new Error(value.$error);
    return value;
  };
  // A property computed on first access, then kept as a plain value.
  const lazy = (obj, key, compute) => Object.defineProperty(obj, key, {
    enumerable: true, configurable: true,
    get() { const value = compute(); Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true }); return value; },
  });
  const specs = {};
  for (const name of names) {
    const r = (query) => check(read(name, query));
    const api = {};
    lazy(api, "info", () => r({ q: "info" }));
    lazy(api, "paths", () => {
      const heads = r({ q: "heads" });
      for (const path of Object.keys(heads)) {
        const item = heads[path];
        for (const method of Object.keys(item)) {
          const op = item[method];
          for (const part of ["parameters", "requestBody", "responses", "security"]) {
            lazy(op, part, () => r({ q: "op", path, method, part }));
          }
        }
      }
      return heads;
    });
    lazy(api, "operations", () => {
      const table = r({ q: "operations" });
      if (!table) return [];
      const list = (text) => (text ? text.split("\\u001f") : []);
      return table.split("\\n").map((line) => {
        const f = line.split("\\t");
        return { id: f[0], method: f[1], path: f[2], summary: f[3] || null, tags: list(f[4]), parameters: list(f[5]), deprecated: f[6] === "1" };
      });
    });
    lazy(api, "schemaNames", () => r({ q: "schemaNames" }));
    lazy(api, "components", () => {
      const schemas = {};
      for (const schemaName of api.schemaNames) lazy(schemas, schemaName, () => r({ q: "schema", name: schemaName }));
      return { schemas };
    });
    api.operation = (id) => r({ q: "operation", id: String(id) });
    api.schema = (schemaName) => r({ q: "schema", name: String(schemaName) });
    api.declaration = (id) => String(r({ q: "declaration", id: String(id) })).replace("<api>", name);
    api.find = (text, limit) => r({ q: "find", text: String(text), limit });
    specs[name] = api;
  }
  Object.defineProperty(globalThis, "specs", { value: specs, enumerable: false, writable: false, configurable: false });
})();`;
}
