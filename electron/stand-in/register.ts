/**
 * `node --import <this file> dist/electron/main.js`: runs the app with
 * `electron` resolved to the stand-in (see hooks.ts).
 */
import { register } from "node:module";

const checkout = new URL("../../", import.meta.url).href;
register("./hooks.ts", import.meta.url, { data: { standIn: new URL("./electron.ts", import.meta.url).href, checkout } });
