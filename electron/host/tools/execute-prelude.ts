/**
 * The guest side of `apis.<name>`: trusted JavaScript the sandbox runs before
 * an execute program. Every method is a thin async call to the host, which
 * does all the real work (match, validate, credentials, send); the guest holds
 * nothing but names.
 */
export function executePrelude(manifest: Record<string, string[]>, opaque: string[] = []): string {
  return `(() => {
  const call = __host.call;
  const manifest = ${JSON.stringify(manifest)};
  const apis = {};
  for (const name of Object.keys(manifest)) {
    const api = { request: (args) => call("apis." + name + ".request", args === undefined ? {} : args) };
    for (const id of manifest[name]) {
      if (id === "request") continue;
      api[id] = (args) => call("apis." + name + "." + id, args === undefined ? {} : args);
    }
    apis[name] = Object.freeze(api);
  }
  // APIs whose operations are not known here (a run's API whose spec is gone): any name reaches the host, which refuses or replays it.
  for (const name of ${JSON.stringify(opaque)}) {
    apis[name] = new Proxy(Object.freeze({}), {
      get: (_t, id) => (typeof id === "string" && id !== "then" ? (args) => call("apis." + name + "." + id, args === undefined ? {} : args) : undefined),
    });
  }
  Object.defineProperty(globalThis, "apis", { value: Object.freeze(apis), enumerable: false, writable: false, configurable: false });
})();`;
}

/** `apis.petstore.getPet` → {api: "petstore", op: "getPet"}; undefined for anything else. */
export function parseCallName(name: string): { api: string; op: string } | undefined {
  const m = /^apis\.([A-Za-z_$][\w$]*)\.([A-Za-z_$][\w$]*)$/.exec(name);
  return m ? { api: m[1]!, op: m[2]! } : undefined;
}
