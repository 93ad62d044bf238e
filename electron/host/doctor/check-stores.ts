/**
 * One check per store of the data directory, each reading its file the way
 * the store itself would, but changing nothing: a doctor that moved files
 * aside while looking would destroy the evidence it reports on.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { JsonFileState } from "../common/json-file.ts";
import { inspectProgramsFile } from "../handlers/programs.ts";
import { inspectTokenFile, MCP_TOKEN_FILE } from "../mcp/token.ts";
import { inspectRunStore } from "../runs/open-database.ts";
import { ArtifactStore } from "../specs/artifact-store.ts";
import { inspectRegistryFile, type RegistryContents } from "../specs/registry-file.ts";
import { AES_GCM_CIPHER_ID, AesGcmCipher } from "../vault/cipher.ts";
import { VAULT_KEY_ENV, VAULT_KEY_FILE } from "../vault/key.ts";
import { inspectDocument, VAULT_FILE, type VaultDocument } from "../vault/store.ts";
import { note, ok, problem, type Finding } from "./findings.ts";

const plural = (n: number, word: string) => `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;

/** The findings for a JSON file's state other than "ok" (which each store describes itself). */
function fileState(path: string, state: Exclude<JsonFileState<unknown>, { status: "ok" }>, whatHappensNext: string, missing: Finding | undefined): Finding[] {
  switch (state.status) {
    case "missing":
      return missing ? [missing] : [];
    case "damaged":
      return [problem(path, `${path} cannot be read: ${state.problem}`, `${whatHappensNext}; or restore the file from a backup first`)];
    case "newer":
      return [problem(path, `${path} is left alone: ${state.problem}`, "upgrade the workbench")];
    case "unreadable":
      return [problem(path, `${path} ${state.problem}`, `check its owner and permissions (ls -l '${path}')`)];
  }
}

export function checkRegistry(dataDir: string): { findings: Finding[]; contents: RegistryContents | undefined } {
  const state = inspectRegistryFile(join(dataDir, "registry.json"));
  if (state.status !== "ok") {
    const next = "the next workbench command moves it aside (keeping it) and starts with no APIs";
    return { findings: fileState("registry.json", state, next, note("registry.json", "no registry yet: the first workbench command creates it")), contents: undefined };
  }
  const { apis, unusable } = state.value;
  const findings = [ok("registry.json", `${plural(apis.length, "API")} registered${apis.length ? `: ${apis.map((a) => a.name).join(", ")}` : ""}`)];
  for (const entry of unusable) {
    findings.push(problem("registry.json", `the entry "${entry.name}" cannot be used: ${entry.reason}`, `workbench api set ${entry.name} ... (to repair it), or workbench api remove ${entry.name}`));
  }
  return { findings, contents: state.value };
}

export function checkArtifacts(dataDir: string, registry: RegistryContents | undefined): Finding[] {
  if (!registry || registry.apis.length === 0) return [];
  const store = new ArtifactStore(dataDir);
  const findings: Finding[] = [];
  for (const api of registry.apis) {
    const where = `artifacts/${api.specHash}.json`;
    const { artifact, text } = store.check(api.specHash);
    if (artifact === "ok" && text !== "damaged") findings.push(ok(where, `the parsed spec of ${api.name} is intact`));
    else if (artifact === "ok") findings.push(note(where, `the parsed spec of ${api.name} is intact, but its kept spec text is damaged, so it could not be rebuilt if it were lost`, `workbench api add again from the spec to keep a good copy`));
    else if (text === "ok") findings.push(note(where, `the parsed spec of ${api.name} is ${artifact}; it is rebuilt from the kept spec text on next use`));
    else findings.push(problem(where, `the parsed spec of ${api.name} is ${artifact} and its spec text is ${text}: the API cannot be used`, `workbench api remove ${api.name}, then workbench api add ${api.name} <spec>`));
  }
  return findings;
}

export function checkVault(dataDir: string, env: NodeJS.ProcessEnv): Finding[] {
  const state = inspectDocument(dataDir);
  if (state.status !== "ok") {
    const next = "the next workbench command moves it aside (keeping it) and starts with an empty vault";
    return fileState(VAULT_FILE, state, next, note(VAULT_FILE, "no vault yet"));
  }
  const doc = state.value;
  const fieldCount = [...doc.items.values()].reduce((n, item) => n + item.fields.size, 0);
  const findings = [ok(VAULT_FILE, `${plural(doc.items.size, "item")} with ${plural(fieldCount, "field")}`)];
  for (const [name, item] of doc.damaged) {
    findings.push(problem(VAULT_FILE, `the item "${name}" cannot be used: ${item.problem}`, `workbench vault remove ${name}, then set its values again`));
  }
  findings.push(...checkVaultValues(dataDir, env, doc));
  return findings;
}

/** Opens each value sealed with this machine's AES key, when the key can be read without creating one. */
function checkVaultValues(dataDir: string, env: NodeJS.ProcessEnv, doc: VaultDocument): Finding[] {
  if (doc.items.size === 0) return [];
  if (!env[VAULT_KEY_ENV] && !existsSync(join(dataDir, VAULT_KEY_FILE))) {
    return [problem(VAULT_KEY_FILE, `the vault holds values but there is no ${VAULT_KEY_FILE} and ${VAULT_KEY_ENV} is not set, so they cannot be opened here`, `restore ${VAULT_KEY_FILE}, or set ${VAULT_KEY_ENV} to the key they were sealed with`)];
  }
  const opened = AesGcmCipher.open({ dataDir, env });
  if (!opened.ok) return [problem(VAULT_KEY_FILE, opened.message)];
  const findings: Finding[] = [];
  let otherCipher = 0;
  for (const [itemName, item] of doc.items) {
    for (const [fieldName, record] of item.fields) {
      const sealed = record as { cipher?: unknown; sealed?: unknown } | null;
      if (sealed?.cipher !== AES_GCM_CIPHER_ID) {
        if (typeof sealed?.cipher === "string") otherCipher++;
        else findings.push(problem(VAULT_FILE, `the value ${itemName}/${fieldName} is malformed (no cipher)`, `workbench vault set ${itemName}/${fieldName} --stdin`));
        continue;
      }
      try {
        opened.cipher.decrypt(Buffer.from(String(sealed.sealed), "base64"));
      } catch {
        findings.push(problem(VAULT_FILE, `the value ${itemName}/${fieldName} cannot be decrypted with the key in use (${opened.source}): another key, or altered bytes`, `use the key it was sealed with, or set it again: workbench vault set ${itemName}/${fieldName} --stdin`));
      }
    }
  }
  if (findings.length === 0) findings.push(ok(opened.source === VAULT_KEY_ENV ? VAULT_KEY_ENV : VAULT_KEY_FILE, `the vault key (${opened.source}) opens every value sealed with it`));
  if (otherCipher > 0) findings.push(note(VAULT_FILE, `${plural(otherCipher, "value")} sealed by the app's system keychain; only the app can open ${otherCipher === 1 ? "it" : "them"}`));
  return findings;
}

export function checkPrograms(dataDir: string): Finding[] {
  const state = inspectProgramsFile(dataDir);
  if (state.status !== "ok") return fileState("programs.json", state, "the editor moves it aside (keeping it) when it next loads its tabs", undefined);
  const findings = [ok("programs.json", `${plural(state.value.programs.length, "saved editor tab")}`)];
  for (const tab of state.value.unreadable) {
    findings.push(problem("programs.json", `editor tab ${tab.position} cannot be read (${tab.reason}); the editor leaves it out`, "the editor keeps a copy of the file as found (programs.json.damaged-*) when it next loads"));
  }
  return findings;
}

export function checkMcpToken(dataDir: string): Finding[] {
  const state = inspectTokenFile(dataDir);
  if (state.status !== "ok") {
    const next = "the next `workbench serve` (or the app) moves it aside and makes a new token; agents then need the new one";
    return fileState(MCP_TOKEN_FILE, state, next, note(MCP_TOKEN_FILE, "no MCP token yet: made when the workbench first serves MCP"));
  }
  return [ok(MCP_TOKEN_FILE, `the MCP token is set${state.value.port ? `; last served on port ${state.value.port}` : ""}`)];
}

export function checkRunStore(dataDir: string): Finding[] {
  const inspected = inspectRunStore(dataDir);
  if (inspected.status === "missing") return [note("runs.sqlite", "no run store yet: the first run creates it")];
  if (inspected.status === "damaged") {
    return [
      problem(
        "runs.sqlite",
        `the run store is damaged: ${inspected.reason}`,
        inspected.salvageable
          ? "workbench doctor --repair copies every readable run into a new store and keeps the damaged file beside it"
          : "workbench doctor --repair moves it aside (keeping it) and starts a new, empty store",
      ),
    ];
  }
  const { runs, calls, pending } = inspected.counts;
  return [ok("runs.sqlite", `${plural(runs, "run")}, ${plural(calls, "call")}, ${plural(pending, "decision")} waiting; SQLite's integrity check passed`)];
}
