/** The registry's records: what the registry file holds for each API. */
import type { ApiConfig } from "../../../shared/api-config.ts";

/** Where a registered API's spec came from. */
export type ApiSource =
  | { kind: "file"; path: string }
  | { kind: "url"; url: string }
  | { kind: "text"; filename?: string }
  /** The bundled demo pet store, served by an in-process demo server started on first use. */
  | { kind: "demo" };

export interface RegisteredApi {
  name: string;
  source: ApiSource;
  /** sha256 of the spec text: the artifact's key in the artifact store. */
  specHash: string;
  /** The configuration as the person gave it (parsed, defaults applied). */
  config: ApiConfig;
  /** Where calls go: config.baseUrl, else the spec's default. Absent only for the demo API, whose server gets a new port per process. */
  baseUrl?: string;
  title: string;
  version: string;
  openapi: string;
  operationCount: number;
  warningCount: number;
  addedAt: string;
  updatedAt: string;
}

export type RegistryChange = { kind: "added" | "updated" | "removed"; name: string };

export type RegistryResult<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };
