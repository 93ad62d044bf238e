/**
 * `--open`: hands the URL to the desktop's opener (xdg-open, open, start).
 * Best effort by design: a headless machine has none, and the server must
 * keep running either way, so failures come back as a sentence to print.
 */
import { spawn } from "node:child_process";

export function openerFor(platform: NodeJS.Platform): { command: string; args: (url: string) => string[] } {
  if (platform === "darwin") return { command: "open", args: (url) => [url] };
  // `start` is a cmd builtin; its first quoted argument is a window title.
  if (platform === "win32") return { command: "cmd", args: (url) => ["/c", "start", '""', url.replace(/&/g, "^&")] };
  return { command: "xdg-open", args: (url) => [url] };
}

/** Resolves with undefined when the opener started, or with why it could not. */
export function openInBrowser(url: string, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
  const { command, args } = openerFor(platform);
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args(url), { stdio: "ignore", detached: true });
      child.once("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ENOENT" ? `${command} is not available` : `${command} failed: ${err.code ?? err.message}`));
      child.once("spawn", () => {
        child.unref();
        resolve(undefined);
      });
    } catch (err) {
      resolve(`${command} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
}
