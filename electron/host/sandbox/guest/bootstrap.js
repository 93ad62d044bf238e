// Guest code: evaluated inside each fresh QuickJS context, first, before the
// prelude and the program. Its value is a function the worker calls once with
// the raw natives (never made global, so the program cannot reach them), the
// console formatter's source (see inspect.js) and the run's configuration as
// JSON text. It captures the built-ins it relies on before untrusted code can
// replace them; installs console, __host, the fixed clock, the seeded
// Math.random and the frozen globals; and returns `start` (runs the program
// and reports how it ended through natives.finish) and `describeError`.
// Everything that reaches the host is text this code produced with the
// original JSON.stringify.
/* eslint-disable @typescript-eslint/no-unused-expressions */
(function bootstrap(natives, inspectSource, configText) {
  "use strict";
  const indirectEval = eval;
  const intrinsics = Object.freeze({
    getOwnPropertyNames: Object.getOwnPropertyNames,
    getOwnPropertySymbols: Object.getOwnPropertySymbols,
    getOwnPropertyDescriptor: Object.getOwnPropertyDescriptor,
    getPrototypeOf: Object.getPrototypeOf,
    sameValue: Object.is,
    apply: Reflect.apply,
    isArray: Array.isArray,
    isView: ArrayBuffer.isView,
    objectToString: Object.prototype.toString,
    functionToString: Function.prototype.toString,
    symbolToString: Symbol.prototype.toString,
    dateGetTime: Date.prototype.getTime,
    dateToISOString: Date.prototype.toISOString,
    regExpToString: RegExp.prototype.toString,
    mapForEach: Map.prototype.forEach,
    setForEach: Set.prototype.forEach,
    mapSize: Object.getOwnPropertyDescriptor(Map.prototype, "size").get,
    setSize: Object.getOwnPropertyDescriptor(Set.prototype, "size").get,
    stringSlice: String.prototype.slice,
    stringReplace: String.prototype.replace,
    stringIncludes: String.prototype.includes,
    stringStartsWith: String.prototype.startsWith,
    regExpTest: RegExp.prototype.test,
    arrayJoin: Array.prototype.join,
    arrayPush: Array.prototype.push,
    jsonStringify: JSON.stringify,
    toStr: String,
    toNumber: Number,
    parseIntFn: parseInt,
    parseFloatFn: parseFloat,
  });
  const { stringify, parse } = JSON;
  const { defineProperty, freeze, isFrozen, getOwnPropertyNames, fromEntries } = Object;
  const { apply, construct } = Reflect;
  const isArray = Array.isArray;
  const arrayFrom = Array.from;
  const imul = Math.imul;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseThen = Promise.prototype.then;
  const mapEntries = Map.prototype.entries;
  const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, "size").get;
  const setValues = Set.prototype.values;
  const setSize = Object.getOwnPropertyDescriptor(Set.prototype, "size").get;
  const toStr = String;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RealDate = Date;
  const dateToString = Date.prototype.toString;
  const natCall = natives.call;
  const natRead = natives.read;
  const sliceString = String.prototype.slice;
  const natLog = natives.log;
  const natFinish = natives.finish;

  const config = parse(configText);
  const global = globalThis;

  let formatter;
  function formatLogArgs(args) {
    formatter ??= indirectEval(inspectSource)(intrinsics, { firstLineShift: config.firstLineShift });
    return formatter(args);
  }

  // ---- JSON crossing -------------------------------------------------------
  // Values leave the guest as JSON text. Map → object, Set → array and
  // BigInt → decimal string, so common values cross instead of failing.
  const TOO_LARGE = {};
  // The tag check is cheap and filters almost everything; the brand check behind it
  // (which throws for impostors) is exact. Throwing per value would be slow.
  const objectToString = Object.prototype.toString;
  function isMap(value) {
    if (apply(objectToString, value, []) !== "[object Map]") return false;
    try { apply(mapSize, value, []); return true; } catch { return false; }
  }
  function isSet(value) {
    if (apply(objectToString, value, []) !== "[object Set]") return false;
    try { apply(setSize, value, []); return true; } catch { return false; }
  }
  function toJsonText(value, maxBytes) {
    // The estimate only grows; exceeding the budget stops serialising long before
    // a huge string is built (the host checks the exact size afterwards).
    let estimate = 0;
    const replacer = function (key, v) {
      if (maxBytes !== undefined) {
        if (!isArray(this)) estimate += key.length + 4;
        estimate += typeof v === "string" ? v.length + 2 : 4;
        if (estimate > maxBytes) throw TOO_LARGE;
      }
      if (typeof v === "bigint") return toStr(v);
      if (v !== null && typeof v === "object") {
        if (isMap(v)) {
          const entries = arrayFrom(apply(mapEntries, v, []), (e) => [toStr(e[0]), e[1]]);
          return fromEntries(entries);
        }
        if (isSet(v)) return arrayFrom(apply(setValues, v, []));
      }
      return v;
    };
    return stringify(value, replacer);
  }

  // ---- console -------------------------------------------------------------
  // natives.log answers 1 (kept), 0 (kept, the limit is reached) or -1 (not
  // kept). Past the limit lines are only counted here, never formatted nor sent, and the count goes
  // to the host with the program's outcome.
  let logsOpen = true;
  let droppedLines = 0;
  function emit(prefix, args) {
    if (!logsOpen) {
      // The first dropped line tells the host the log was cut, in case the run dies before reporting.
      if (droppedLines === 0) natLog(undefined);
      droppedLines++;
      return;
    }
    let text;
    try {
      text = prefix + formatLogArgs(args);
    } catch {
      text = `${prefix}[unformattable log line]`;
    }
    const kept = natLog(text);
    if (kept < 1) logsOpen = false;
    if (kept < 0) droppedLines++;
  }
  const consoleObject = {
    log: (...args) => emit("", args),
    info: (...args) => emit("", args),
    debug: (...args) => emit("", args),
    dir: (value) => emit("", [value]),
    table: (...args) => emit("", args),
    trace: (...args) => emit("Trace: ", args),
    warn: (...args) => emit("warn: ", args),
    error: (...args) => emit("error: ", args),
    assert: (condition, ...args) => {
      if (!condition) emit("error: Assertion failed", args.length ? [":", ...args] : []);
    },
  };
  defineProperty(global, "console", { value: freeze(consoleObject), writable: true, configurable: true, enumerable: false });

  // ---- fixed clock ---------------------------------------------------------
  const clock = config.clock;
  function FixedDate(...args) {
    if (new.target === undefined) return apply(dateToString, construct(RealDate, [clock]), []);
    return construct(RealDate, args.length === 0 ? [clock] : args, new.target);
  }
  defineProperty(FixedDate, "name", { value: "Date" });
  defineProperty(FixedDate, "length", { value: 7 });
  FixedDate.prototype = RealDate.prototype;
  FixedDate.now = function now() { return clock; };
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  defineProperty(RealDate.prototype, "constructor", { value: FixedDate, writable: true, configurable: true, enumerable: false });
  defineProperty(global, "Date", { value: FixedDate, writable: true, configurable: true, enumerable: false });

  // ---- seeded Math.random: sfc32 seeded through splitmix32 -----------------
  let seed = config.seed | 0;
  function splitmix32() {
    seed = (seed + 0x9e3779b9) | 0;
    let t = seed ^ (seed >>> 16);
    t = imul(t, 0x21f0aaad);
    t ^= t >>> 15;
    t = imul(t, 0x735a2d97);
    return (t ^ (t >>> 15)) | 0;
  }
  let a = splitmix32(), b = splitmix32(), c = splitmix32(), d = splitmix32();
  function random() {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  }
  for (let i = 0; i < 12; i++) random();
  defineProperty(Math, "random", { value: random, writable: true, configurable: true, enumerable: false });

  // ---- frozen globals ------------------------------------------------------
  function deepFreeze(value) {
    if (value === null || typeof value !== "object" || isFrozen(value)) return value;
    freeze(value);
    const names = getOwnPropertyNames(value);
    for (let i = 0; i < names.length; i++) deepFreeze(value[names[i]]);
    return value;
  }
  const globals = config.globals;
  const globalNames = getOwnPropertyNames(globals);
  for (let i = 0; i < globalNames.length; i++) {
    const name = globalNames[i];
    defineProperty(global, name, { value: deepFreeze(globals[name]), writable: false, configurable: false, enumerable: true });
  }

  // ---- __host --------------------------------------------------------------
  function callFailed(text) {
    const detail = parse(text);
    const error = new ErrorCtor(detail.message);
    error.name = detail.name;
    if ("details" in detail) error.details = detail.details;
    throw error;
  }
  const host = freeze({
    call(name, args) {
      if (typeof name !== "string") throw new TypeErrorCtor("__host.call: the name must be a string");
      const text = args === undefined ? "null" : toJsonText(args);
      return apply(promiseThen, natCall(name, text === undefined ? "null" : text), [parse, callFailed]);
    },
    read(dataset, query) {
      if (typeof dataset !== "string") throw new TypeErrorCtor("__host.read: the dataset name must be a string");
      const text = query === undefined ? "null" : toJsonText(query);
      const answer = natRead(dataset, text === undefined ? "null" : text);
      const body = apply(sliceString, answer, [1]);
      return answer[0] === "s" ? body : parse(body);
    },
  });
  defineProperty(global, "__host", { value: host, writable: false, configurable: false, enumerable: false });

  // ---- start ---------------------------------------------------------------
  function describe(error) {
    if (error === null || error === undefined) return { name: "Error", message: `the program threw ${toStr(error)}`, stack: "" };
    if (typeof error !== "object" && typeof error !== "function") return { name: "Error", message: toStr(error), stack: "" };
    let name, message, stack;
    try {
      name = error.name;
      message = error.message;
      stack = error.stack;
    } catch {
      // A throwing getter on the error: fall back to formatting it.
    }
    return {
      name: typeof name === "string" && name ? name : "Error",
      message: typeof message === "string" ? message : formatLogArgs([error]),
      stack: typeof stack === "string" ? stack : "",
    };
  }
  function describeText(error, prefix) {
    try {
      const described = describe(error);
      if (prefix) described.message = prefix + described.message;
      return stringify(described);
    } catch {
      return '{"name":"Error","message":"the program failed and its error could not be described","stack":""}';
    }
  }
  function reportError(error, prefix) {
    natFinish("error", describeText(error, prefix), droppedLines);
  }
  function reportResult(value) {
    let text;
    try {
      text = toJsonText(value === undefined ? null : value, config.maxOutputBytes);
    } catch (error) {
      if (error === TOO_LARGE) natFinish("too_large", "", droppedLines);
      else reportError(error, "the program's result cannot be turned into JSON: ");
      return;
    }
    natFinish("result", text === undefined ? "null" : text, droppedLines);
  }

  function start(main) {
    let outcome;
    try {
      outcome = promiseResolve(typeof main === "function" ? main() : main);
    } catch (error) {
      reportError(error);
      return;
    }
    apply(promiseThen, outcome, [reportResult, (error) => reportError(error)]);
  }

  // The worker describes errors thrown outside `start` (by the prelude, or a
  // syntax error QuickJS found) with the same rules.
  return freeze({ start, describeError: (error) => describeText(error) });
});
