/**
 * A host call's arguments are checked in the worker, before they cross to the
 * host's main thread: a program can build a 100 MB string or an array nested
 * 100,000 deep in its own memory, and parsing, hashing, validating or redacting
 * that on the main thread would hold every other run and client. Such a call
 * still reaches the host, as a refusal with its reason, so it is recorded.
 */

/** Arguments larger than this (as JSON text, in UTF-16 code units) are refused. */
export const MAX_CALL_ARGUMENT_CHARS = 16 * 1024 * 1024;
/** Arrays and objects nested deeper than this are refused; no API takes such a body. */
export const MAX_CALL_ARGUMENT_DEPTH = 128;

/** Why the arguments cannot cross, or undefined when they can. One pass over the text. */
export function callArgumentProblem(argsText: string): string | undefined {
  if (argsText.length > MAX_CALL_ARGUMENT_CHARS) {
    return `the call's arguments are ${(argsText.length / 1024 / 1024).toFixed(1)} MB of JSON; a call takes at most ${MAX_CALL_ARGUMENT_CHARS / 1024 / 1024} MB`;
  }
  let depth = 0;
  let inString = false;
  for (let i = 0; i < argsText.length; i++) {
    const c = argsText.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_CALL_ARGUMENT_DEPTH) return `the call's arguments are nested more than ${MAX_CALL_ARGUMENT_DEPTH} levels deep`;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}
