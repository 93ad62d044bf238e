/**
 * The host's own log: `<dataDir>/logs/host.log`, owner-only, rotated (a few
 * files of a few MB), every line passed through the redactor of the vault's
 * secrets and the credentials the resolver holds. Host exceptions can quote
 * request data (and so secrets); they are written here, redacted, and what an
 * agent or a person sees is a fixed sentence with an error id that finds the
 * line (`reportInternalError`): "internal error E-7K2Q9P; details in the host
 * log, logs/host.log in the data directory".
 *
 * With `WORKBENCH_DEBUG` set, lines also go to stderr (redacted the same way).
 */
import { appendFileSync, chmodSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";

/** What the log needs of a redactor (the vault's Redactor is one): the text with every secret hidden. */
export interface LineRedactor {
  redact(text: string): string;
}

export const HOST_LOG_MAX_BYTES = 5 * 1024 * 1024;
export const HOST_LOG_KEEP = 3;

export interface HostLogOptions {
  dataDir: string;
  /** The redactor to use for each line (built fresh, so new vault items count at once). */
  redactor: () => LineRedactor;
  /** Also told every line, already redacted (stderr under WORKBENCH_DEBUG, a test's array). */
  echo?: (line: string) => void;
  maxBytes?: number;
  keep?: number;
}

export class HostLog {
  readonly path: string;
  readonly #o: HostLogOptions;
  #broken = false;

  constructor(options: HostLogOptions) {
    this.#o = options;
    const dir = join(options.dataDir, "logs");
    this.path = join(dir, "host.log");
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      this.#broken = true;
    }
  }

  /** Writes one redacted line. Never throws: a log that cannot be written must not stop the host. */
  write(message: string): void {
    let line: string;
    try {
      line = this.#o.redactor().redact(message);
    } catch {
      line = "⟦hidden:redaction-failed⟧";
    }
    const stamped = `${new Date().toISOString()} [${process.pid}] ${line.replace(/\n/g, "\n    ")}\n`;
    this.#o.echo?.(line);
    if (this.#broken) return;
    try {
      this.#rotateIfFull();
      appendFileSync(this.path, stamped, { mode: 0o600 });
    } catch {
      this.#broken = true; // a read-only or full disk: keep running, stop trying
    }
  }

  #rotateIfFull(): void {
    const max = this.#o.maxBytes ?? HOST_LOG_MAX_BYTES;
    if (!existsSync(this.path) || statSync(this.path).size < max) return;
    const keep = this.#o.keep ?? HOST_LOG_KEEP;
    rmSync(`${this.path}.${keep - 1}`, { force: true });
    for (let i = keep - 2; i >= 1; i--) if (existsSync(`${this.path}.${i}`)) renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
    renameSync(this.path, `${this.path}.1`);
    try {
      chmodSync(`${this.path}.1`, 0o600);
    } catch {
      // best effort
    }
  }
}

/** `E-` and six characters of Crockford's base32: short enough to read aloud, enough to find one line. */
export function newErrorId(): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  return `E-${[...randomBytes(6)].map((b) => alphabet[b % 32]).join("")}`;
}

/**
 * Logs an internal failure with a fresh error id and returns the sentence to
 * show instead of the exception's text, which may quote request data.
 */
export function reportInternalError(log: (message: string) => void, what: string, err: unknown): string {
  const id = newErrorId();
  log(`${id} ${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return `${what} (internal error ${id}; details in the host log, logs/host.log in the data directory)`;
}
