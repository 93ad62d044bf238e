/**
 * The guest side of `apis.<name>`: trusted JavaScript the sandbox runs before
 * an execute program. Every method is a thin async call to the host, which
 * does all the real work (match, validate, credentials, send); the guest holds
 * nothing but names.
 *
 * A name the guest does not know (a mistyped operation, an API that is not
 * registered) is still a call to the host, so it is refused there like any
 * other bad call: `CallRejected` naming the nearest operations or the
 * registered APIs, and recorded in the run. A plain object would answer
 * `TypeError: not a function` instead, with nothing recorded. `then` and
 * `toJSON` stay absent, so `await apis.petstore` and `JSON.stringify(apis)`
 * keep behaving as for any object; `"op" in apis.api` still tells what exists.
 */
export function executePrelude(manifest: Record<string, string[]>, opaque: string[] = []): string {
  return `(() => {
  const call = __host.call;
  const manifest = ${JSON.stringify(manifest)};
  const ProxyCtor = Proxy;
  const reflectGet = Reflect.get;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const toStr = String;
  const sliceString = String.prototype.slice;
  const indexOf = String.prototype.indexOf;
  const apply = Reflect.apply;
  // Names the language itself looks up: never a call. No prototype, so a program cannot add to it.
  const notCalls = freeze({ __proto__: null, then: true, toJSON: true });
  // Bounded, so a silly property name cannot flood the call log.
  const shortName = (key) => apply(sliceString, toStr(key), [0, ${MAX_NAME_CHARS}]);
  const bind = (name, op) => (args) => call("apis." + name + "." + op, args === undefined ? {} : args);
  const guarded = (target, unknown) =>
    new ProxyCtor(freeze(target), {
      get(t, key, receiver) {
        if (typeof key !== "string" || key in t || notCalls[key] === true) return reflectGet(t, key, receiver);
        return unknown(shortName(key));
      },
    });
  const apiOf = (name, ids) => {
    const api = { request: bind(name, "request") };
    for (const id of ids) if (id !== "request") api[id] = bind(name, id);
    return guarded(api, (op) => bind(name, op));
  };
  const apis = {};
  for (const name of Object.keys(manifest)) apis[name] = apiOf(name, manifest[name]);
  // apis.call("petstore.listPets", args) is apis.petstore.listPets(args); without a dot, the name is an operation of no API.
  if (!("call" in apis)) {
    defineProperty(apis, "call", {
      value: (target, args) => {
        const text = shortName(target);
        return call(apply(indexOf, text, ["."]) < 0 ? "apis.." + text : "apis." + text, args === undefined ? {} : args);
      },
      enumerable: false,
    });
  }
  // APIs whose operations are not known here (a run's API whose spec is gone): every name reaches the host, which refuses or replays it.
  for (const name of ${JSON.stringify(opaque)}) if (!(name in apis)) apis[name] = apiOf(name, []);
  const root = guarded(apis, (name) => apiOf(name, []));
  defineProperty(globalThis, "apis", { value: root, enumerable: false, writable: false, configurable: false });
})();`;
}

const MAX_NAME_CHARS = 200;

/**
 * `apis.petstore.getPet` → {api: "petstore", op: "getPet"}; undefined for a
 * name that is not an API call. API names are identifiers (no dots), so the
 * first dot after `apis.` ends the API; the operation is the rest, whatever
 * the program typed (`apis.petstore["get-pet"]`), and either may be empty
 * (`apis.call("listPets")`): the proxy refuses those, saying why.
 */
export function parseCallName(name: string): { api: string; op: string } | undefined {
  const m = /^apis\.([^.]*)\.([\s\S]*)$/.exec(name);
  return m ? { api: m[1]!, op: m[2]!.slice(0, MAX_NAME_CHARS) } : undefined;
}
