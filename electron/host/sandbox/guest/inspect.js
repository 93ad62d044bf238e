// Guest code: the console formatter. The bootstrap evaluates it on the first
// console call (compiling it costs ~1.8 ms, which runs that never log should
// not pay) and hands it the built-ins it captured before the program ran, so
// a program that replaces built-ins cannot change how values are described.
// Its value is a factory of the function that formats console arguments the
// way Node's console does for plain data (util.inspect defaults: depth 2,
// 100 entries, 10,000 characters per nested string, lines broken past 80
// columns). It never runs a getter: accessors print as [Getter] / [Setter],
// as in Node.
/* eslint-disable @typescript-eslint/no-unused-expressions */
(function makeFormatLogArgs(intrinsics, options) {
  "use strict";
  const {
    getOwnPropertyNames, getOwnPropertySymbols, getOwnPropertyDescriptor, getPrototypeOf, sameValue, apply, isArray, isView,
    objectToString, functionToString, symbolToString, dateGetTime, dateToISOString, regExpToString, mapForEach, setForEach,
    mapSize, setSize, stringSlice, stringReplace, stringIncludes, stringStartsWith, regExpTest, arrayJoin, arrayPush,
    jsonStringify, toStr, toNumber, parseIntFn, parseFloatFn,
  } = intrinsics;
  const firstLineShift = options.firstLineShift;

  const MAX_DEPTH = 2;
  const MAX_ENTRIES = 100;
  const MAX_STRING = 10000;
  const BREAK_LENGTH = 80;
  const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

  const push = (list, item) => apply(arrayPush, list, [item]);
  const join = (list, sep) => apply(arrayJoin, list, [sep]);
  const tag = (value) => apply(objectToString, value, []);

  function quote(text) {
    let s = text;
    let more = "";
    if (s.length > MAX_STRING) {
      more = `... ${s.length - MAX_STRING} more characters`;
      s = apply(stringSlice, s, [0, MAX_STRING]);
    }
    const single = !apply(stringIncludes, s, ["'"]);
    const escaped = apply(stringReplace, s, [single ? /[\\\n\r\t]/g : /[\\'\n\r\t]/g, (c) => ({ "\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c]]);
    return `'${escaped}'${more}`;
  }

  function formatPrimitive(value) {
    switch (typeof value) {
      case "string": return quote(value);
      case "number": return sameValue(value, -0) ? "-0" : toStr(value);
      case "bigint": return `${toStr(value)}n`;
      case "symbol": return apply(symbolToString, value, []);
      default: return toStr(value);
    }
  }

  function constructorName(value) {
    let proto = value;
    for (let i = 0; i < 100; i++) {
      proto = getPrototypeOf(proto);
      if (proto === null) return null;
      const desc = getOwnPropertyDescriptor(proto, "constructor");
      if (desc && typeof desc.value === "function") {
        const nameDesc = getOwnPropertyDescriptor(desc.value, "name");
        if (nameDesc && typeof nameDesc.value === "string" && nameDesc.value) return nameDesc.value;
      }
    }
    return null;
  }

  function functionName(fn) {
    const desc = getOwnPropertyDescriptor(fn, "name");
    return desc && typeof desc.value === "string" ? desc.value : "";
  }

  function formatKey(key) {
    if (typeof key === "symbol") return `[${apply(symbolToString, key, [])}]`;
    return apply(regExpTest, IDENTIFIER, [key]) ? key : quote(key);
  }

  function formatProperty(value, key, depth, seen) {
    const desc = getOwnPropertyDescriptor(value, key);
    if (!desc) return `${formatKey(key)}: undefined`;
    if (desc.get || desc.set) return `${formatKey(key)}: ${desc.get && desc.set ? "[Getter/Setter]" : desc.get ? "[Getter]" : "[Setter]"}`;
    return `${formatKey(key)}: ${format(desc.value, depth + 1, seen)}`;
  }

  function enumerableKeys(value, skipIndices) {
    const keys = [];
    const names = getOwnPropertyNames(value);
    for (let i = 0; i < names.length; i++) {
      const key = names[i];
      if (skipIndices && apply(regExpTest, /^(0|[1-9][0-9]*)$/, [key])) continue;
      if (skipIndices && key === "length") continue;
      const desc = getOwnPropertyDescriptor(value, key);
      if (desc && desc.enumerable) push(keys, key);
    }
    const symbols = getOwnPropertySymbols(value);
    for (let i = 0; i < symbols.length; i++) {
      const desc = getOwnPropertyDescriptor(value, symbols[i]);
      if (desc && desc.enumerable) push(keys, symbols[i]);
    }
    return keys;
  }

  function reduce(prefix, open, close, entries, depth) {
    if (entries.length === 0) return `${prefix}${open}${close}`;
    let total = entries.length + prefix.length + open.length + depth * 2 + 10;
    let multiline = false;
    for (let i = 0; i < entries.length; i++) {
      total += entries[i].length;
      if (apply(stringIncludes, entries[i], ["\n"])) multiline = true;
    }
    if (!multiline && total + entries.length <= BREAK_LENGTH) return `${prefix}${open} ${join(entries, ", ")} ${close}`;
    // Indentation is relative: each level indents its entries' lines by two more spaces.
    const lines = [];
    for (let i = 0; i < entries.length; i++) push(lines, `  ${apply(stringReplace, entries[i], [/\n/g, "\n  "])}`);
    return `${prefix}${open}\n${join(lines, ",\n")}\n${close}`;
  }

  function formatArrayLike(value, depth, seen, length, prefix) {
    const entries = [];
    let holes = 0;
    const shown = length < MAX_ENTRIES ? length : MAX_ENTRIES;
    const flushHoles = () => {
      if (holes) push(entries, `<${holes} empty item${holes > 1 ? "s" : ""}>`);
      holes = 0;
    };
    for (let i = 0; i < shown; i++) {
      const desc = getOwnPropertyDescriptor(value, toStr(i));
      if (!desc) { holes++; continue; }
      flushHoles();
      push(entries, desc.get || desc.set ? "[Getter]" : format(desc.value, depth + 1, seen));
    }
    flushHoles();
    if (length > shown) push(entries, `... ${length - shown} more item${length - shown > 1 ? "s" : ""}`);
    if (!isView(value)) {
      const extra = enumerableKeys(value, true);
      for (let i = 0; i < extra.length; i++) push(entries, formatProperty(value, extra[i], depth, seen));
    }
    return reduce(prefix, "[", "]", entries, depth);
  }

  function formatCollection(value, depth, seen, size, forEach, isMap, prefix) {
    const entries = [];
    let count = 0;
    apply(forEach, value, [(v, k) => {
      count++;
      if (count > MAX_ENTRIES) return;
      push(entries, isMap ? `${format(k, depth + 1, seen)} => ${format(v, depth + 1, seen)}` : format(v, depth + 1, seen));
    }]);
    if (size > MAX_ENTRIES) push(entries, `... ${size - MAX_ENTRIES} more item${size - MAX_ENTRIES > 1 ? "s" : ""}`);
    return reduce(prefix, "{", "}", entries, depth);
  }

  function tryCall(fn, self) {
    try {
      return { ok: true, value: apply(fn, self, []) };
    } catch {
      return { ok: false };
    }
  }

  /** The stack as the program's author reads it: no sandbox frames, line-1 columns as written. */
  function programStack(stack) {
    const kept = apply(stringReplace, stack, [/^.*\((?:bootstrap|inspect)\.js:\d+:\d+\)\n?/gm, ""]);
    const mapped = apply(stringReplace, kept, [/program\.js:1:(\d+)/g, (whole, column) => `program.js:1:${toNumber(column) - firstLineShift}`]);
    return apply(stringReplace, mapped, [/\n$/, ""]);
  }

  function formatError(value, depth, seen) {
    const nameDesc = getOwnPropertyDescriptor(value, "name") || getOwnPropertyDescriptor(getPrototypeOf(value) || {}, "name");
    const messageDesc = getOwnPropertyDescriptor(value, "message");
    const stackDesc = getOwnPropertyDescriptor(value, "stack");
    const name = nameDesc && typeof nameDesc.value === "string" ? nameDesc.value : "Error";
    const message = messageDesc && typeof messageDesc.value === "string" ? messageDesc.value : "";
    let text = message ? `${name}: ${message}` : name;
    if (stackDesc && typeof stackDesc.value === "string" && stackDesc.value) text += `\n${programStack(stackDesc.value)}`;
    const extra = enumerableKeys(value, false);
    const entries = [];
    for (let i = 0; i < extra.length; i++) {
      if (extra[i] !== "stack" && extra[i] !== "message") push(entries, formatProperty(value, extra[i], depth, seen));
    }
    return entries.length ? reduce(`${text} `, "{", "}", entries, depth) : text;
  }

  function format(value, depth, seen) {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return formatPrimitive(value);
    if (typeof value === "function") {
      const source = tryCall(functionToString, value);
      const name = functionName(value);
      if (source.ok && apply(stringStartsWith, source.value, ["class"])) return name ? `[class ${name}]` : "[class (anonymous)]";
      return name ? `[Function: ${name}]` : "[Function (anonymous)]";
    }
    for (let i = 0; i < seen.length; i++) if (seen[i] === value) return "[Circular]";
    const time = tryCall(dateGetTime, value);
    if (time.ok) return time.value === time.value ? apply(dateToISOString, value, []) : "Invalid Date";
    const kind = tag(value);
    if (kind === "[object RegExp]") {
      const text = tryCall(regExpToString, value);
      if (text.ok) return text.value;
    }
    if (kind === "[object Error]") return formatError(value, depth, seen);
    const ctor = constructorName(value);
    const size = (getter) => { const r = tryCall(getter, value); return r.ok ? r.value : -1; };
    const mapEntries = size(mapSize);
    const setEntries = mapEntries < 0 ? size(setSize) : -1;
    const array = isArray(value);
    if (depth > MAX_DEPTH) {
      if (array) return "[Array]";
      return `[${ctor || "Object"}]`;
    }
    push(seen, value);
    try {
      if (array) {
        return formatArrayLike(value, depth, seen, value.length, ctor && ctor !== "Array" ? `${ctor}(${value.length}) ` : "");
      }
      if (isView(value) && kind !== "[object DataView]") {
        const length = value.length;
        return formatArrayLike(value, depth, seen, length, `${ctor || "TypedArray"}(${length}) `);
      }
      if (mapEntries >= 0) return formatCollection(value, depth, seen, mapEntries, mapForEach, true, `${ctor || "Map"}(${mapEntries}) `);
      if (setEntries >= 0) return formatCollection(value, depth, seen, setEntries, setForEach, false, `${ctor || "Set"}(${setEntries}) `);
      const keys = enumerableKeys(value, false);
      const entries = [];
      const shown = keys.length < MAX_ENTRIES ? keys.length : MAX_ENTRIES;
      for (let i = 0; i < shown; i++) push(entries, formatProperty(value, keys[i], depth, seen));
      if (keys.length > shown) push(entries, `... ${keys.length - shown} more propert${keys.length - shown > 1 ? "ies" : "y"}`);
      let prefix = "";
      if (ctor === null) prefix = "[Object: null prototype] ";
      else if (ctor !== "Object") prefix = `${ctor} `;
      if (kind === "[object Promise]") return `${prefix || "Promise "}{ <unknown> }`;
      return reduce(prefix, "{", "}", entries, depth);
    } finally {
      seen.length--;
    }
  }

  function inspect(value) {
    try {
      return format(value, 0, []);
    } catch (err) {
      // A proxy trap or exotic object can throw; the log line says so instead of failing the run.
      return "[uninspectable value]";
    }
  }

  /** Node's format specifiers: %s %d %i %f %j %o %O %c %%. */
  function formatLogArgs(args) {
    const parts = [];
    let next = 0;
    if (typeof args[0] === "string" && args.length > 1 && apply(stringIncludes, args[0], ["%"])) {
      next = 1;
      push(parts, apply(stringReplace, args[0], [/%([sdifjoOc%])/g, (whole, spec) => {
        if (spec === "%") return "%";
        if (next >= args.length) return whole;
        const arg = args[next++];
        switch (spec) {
          case "s": return typeof arg === "string" ? arg : typeof arg === "bigint" ? `${toStr(arg)}n` : typeof arg === "object" && arg !== null ? inspect(arg) : formatPrimitive(arg);
          case "d": return typeof arg === "bigint" ? `${toStr(arg)}n` : typeof arg === "object" ? "NaN" : formatPrimitive(toNumber(arg));
          case "i": return typeof arg === "bigint" ? `${toStr(arg)}n` : formatPrimitive(parseIntFn(arg));
          case "f": return formatPrimitive(parseFloatFn(arg));
          case "j": try { return toStr(jsonStringify(arg)); } catch { return "[Circular]"; }
          case "c": return "";
          default: return inspect(arg);
        }
      }]));
    }
    for (; next < args.length; next++) {
      const arg = args[next];
      push(parts, typeof arg === "string" ? arg : inspect(arg));
    }
    return join(parts, " ");
  }

  return formatLogArgs;
});
