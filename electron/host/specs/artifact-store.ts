/**
 * The artifact cache: `<dataDir>/artifacts/<sha256>.json`, keyed by the hash
 * of the spec's text, so registering the same spec again (or loading it at
 * every start) costs a file read and a JSON.parse instead of an ingest. The
 * spec's text is kept beside it (`<sha256>.source`), so a damaged or stale
 * artifact is rebuilt instead of lost.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ARTIFACT_FORMAT, type Artifact, type IngestResult } from "../../../shared/artifact.ts";
import { writeFileAtomic } from "../common/atomic-file.ts";
import { ingest, INGEST_REVISION, specHash } from "./ingest.ts";

export type ArtifactLoad =
  | { ok: true; artifact: Artifact; /** Set when the cached file was unusable and the artifact was rebuilt from the spec text. */ rebuilt?: string }
  | { ok: false; error: { code: string; message: string } };

export class ArtifactStore {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, "artifacts");
  }

  /** Ingests `text`, or returns the artifact already cached for it. Failed ingests are not cached. */
  ingest(text: string): { result: IngestResult; cached: boolean } {
    const hash = specHash(text);
    const cached = this.readCached(hash);
    if (cached.artifact) return { result: { ok: true, artifact: cached.artifact }, cached: true };
    const result = ingest(text);
    if (result.ok) this.write(result.artifact, text);
    return { result, cached: false };
  }

  /** The artifact for a spec hash, rebuilt from the kept spec text when the cached file is damaged or stale. */
  load(hash: string): ArtifactLoad {
    const cached = this.readCached(hash);
    if (cached.artifact) return { ok: true, artifact: cached.artifact };
    const sourcePath = this.sourcePath(hash);
    let text: string;
    try {
      text = readFileSync(sourcePath, "utf8");
    } catch {
      return { ok: false, error: { code: "artifact-unavailable", message: `the parsed spec ${hash.slice(0, 12)} is ${cached.problem} and its text is gone; add the API again` } };
    }
    if (specHash(text) !== hash) {
      return { ok: false, error: { code: "artifact-unavailable", message: `the parsed spec ${hash.slice(0, 12)} is ${cached.problem} and its kept text is damaged; add the API again` } };
    }
    const result = ingest(text);
    if (!result.ok) return { ok: false, error: { code: "artifact-unavailable", message: `the spec ${hash.slice(0, 12)} no longer ingests: ${result.error.message}` } };
    this.write(result.artifact, text);
    return { ok: true, artifact: result.artifact, rebuilt: `the cached artifact was ${cached.problem}; rebuilt it from the spec text` };
  }

  /** Caches an artifact that came from elsewhere (no spec text to keep). A damaged file is caught by `load`, so existence is enough here. */
  ensure(artifact: Artifact): void {
    if (!existsSync(this.artifactPath(artifact.hash))) this.write(artifact);
  }

  /**
   * The state of a spec's cached artifact and of its kept text, changing
   * nothing (for `workbench doctor`): "ok", or why the artifact cannot be used
   * as is ("missing", "damaged", "from an older version of the workbench").
   */
  check(hash: string): { artifact: string; text: "ok" | "missing" | "damaged" } {
    const cached = this.readCached(hash);
    let text: "ok" | "missing" | "damaged";
    try {
      text = specHash(readFileSync(this.sourcePath(hash), "utf8")) === hash ? "ok" : "damaged";
    } catch {
      text = "missing";
    }
    return { artifact: cached.artifact ? "ok" : cached.problem, text };
  }

  /** The artifact's JSON as stored, for readers that parse it themselves (sandbox workers). */
  text(hash: string): string | undefined {
    try {
      return readFileSync(this.artifactPath(hash), "utf8");
    } catch {
      return undefined;
    }
  }

  private write(artifact: Artifact, text?: string): void {
    // The revision rides along in the file so a newer ingest rebuilds old artifacts; readers ignore it.
    writeFileAtomic(this.artifactPath(artifact.hash), JSON.stringify({ ingestRevision: INGEST_REVISION, ...artifact }));
    if (text !== undefined && !existsSync(this.sourcePath(artifact.hash))) writeFileAtomic(this.sourcePath(artifact.hash), text);
  }

  private readCached(hash: string): { artifact?: Artifact; problem: string } {
    if (!/^[0-9a-f]{64}$/.test(hash)) return { problem: "not a spec hash" };
    let text: string;
    try {
      text = readFileSync(this.artifactPath(hash), "utf8");
    } catch {
      return { problem: "missing" };
    }
    try {
      const { ingestRevision, ...artifact } = JSON.parse(text) as Artifact & { ingestRevision?: number };
      if (artifact.format !== ARTIFACT_FORMAT || artifact.hash !== hash || !Array.isArray(artifact.operations)) return { problem: "damaged" };
      if (ingestRevision !== INGEST_REVISION) return { problem: "from an older version of the workbench" };
      return { artifact, problem: "" };
    } catch {
      return { problem: "damaged" };
    }
  }

  private artifactPath(hash: string): string {
    return join(this.dir, `${hash}.json`);
  }

  private sourcePath(hash: string): string {
    return join(this.dir, `${hash}.source`);
  }
}
