/**
 * The CLI's window on the world, injected so tests run commands in-process and
 * read exactly what a user would see.
 */
import { readFile } from "node:fs/promises";

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): Promise<string>;
  env: NodeJS.ProcessEnv;
  /** Set the process exit code (the highest one set wins). */
  exit(code: number): void;
  /** Opens a URL in a browser (default: the desktop's opener); tests drive a browser of their own. */
  openUrl?(url: string): Promise<void>;
}

/** A user-facing failure: printed as `error: <message>` with no stack trace. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}

export function processIo(): CliIo & { code: number } {
  const io = {
    code: 0,
    stdout: (text: string) => void process.stdout.write(text),
    stderr: (text: string) => void process.stderr.write(text),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    env: process.env,
    exit(code: number) {
      io.code = Math.max(io.code, code);
    },
  };
  return io;
}

/** Reads `--code <file|->`: a path, or `-` for stdin. */
export async function readCodeArg(io: CliIo, arg: string): Promise<string> {
  if (arg === "-") return io.readStdin();
  try {
    return await readFile(arg, "utf8");
  } catch (err) {
    throw new CliError(`cannot read program file ${arg}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

export function printJson(io: CliIo, value: unknown, pretty = true): void {
  io.stdout(`${pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`);
}
