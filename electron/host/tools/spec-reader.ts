/**
 * Answers the search program's reads of one API's artifact. It runs inside the
 * sandbox's worker (loaded by URL, see sandbox/types.ts Dataset.reader), next
 * to the cached artifact, so a search touches only what it reads: a 13 MB spec
 * is never copied into the sandbox whole, and schemas are expanded (cycles
 * marked) only when a program asks for that part. Total: a bad query returns
 * `{$error}`, never throws.
 */
import type { Artifact, HttpMethod, Operation } from "../../../shared/artifact.ts";
import type { JsonValue } from "../../../shared/json.ts";
import { expandSchema } from "../../../shared/schema-expand.ts";
import { buildOperationIndex, type OperationIndex } from "./operation-search.ts";
import { operationDeclaration } from "./typescript.ts";

/** Expansion budget per read: a big response schema stays a few hundred KB at most. */
const MAX_NODES = 20_000;

type Query =
  | { q: "info" }
  | { q: "heads" }
  | { q: "op"; path: string; method: HttpMethod; part: OperationPart }
  | { q: "operations" }
  | { q: "operation"; id: string }
  | { q: "schema"; name: string }
  | { q: "schemaNames" }
  | { q: "declaration"; id: string }
  | { q: "find"; text: string; limit?: number };

type OperationPart = "parameters" | "requestBody" | "responses" | "security" | "servers";

interface Index {
  byId: Map<string, Operation>;
  byPath: Map<string, Operation>;
}

const indexes = new WeakMap<Artifact, Index>();

function indexOf(artifact: Artifact): Index {
  let index = indexes.get(artifact);
  if (!index) {
    index = {
      byId: new Map(artifact.operations.map((op) => [op.id, op])),
      byPath: new Map(artifact.operations.map((op) => [`${op.method} ${op.path}`, op])),
    };
    indexes.set(artifact, index);
  }
  return index;
}

export function read(data: unknown, query: JsonValue): JsonValue {
  try {
    return answer(data as Artifact, query as Query);
  } catch (err) {
    return { $error: `spec read failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function answer(artifact: Artifact, query: Query): JsonValue {
  const expand = (value: JsonValue) => expandSchema(value, artifact.schemas, { maxNodes: MAX_NODES });
  switch (query?.q) {
    case "info":
      return {
        title: artifact.info.title,
        version: artifact.info.version,
        description: artifact.info.description ?? null,
        openapi: artifact.openapi,
        servers: artifact.servers as unknown as JsonValue,
        tags: artifact.tags as unknown as JsonValue,
        securitySchemes: artifact.securitySchemes as unknown as JsonValue,
        operationCount: artifact.operations.length,
        schemaCount: Object.keys(artifact.schemas).length,
      };
    case "heads": {
      const paths: Record<string, Record<string, JsonValue>> = {};
      for (const op of artifact.operations) {
        const item = (paths[op.path] ??= {});
        const head: Record<string, JsonValue> = { operationId: op.id, summary: op.summary ?? null, description: op.description ?? null, tags: op.tags, deprecated: op.deprecated };
        item[op.method] = head;
      }
      return paths;
    }
    case "op": {
      const op = indexOf(artifact).byPath.get(`${query.method} ${query.path}`);
      if (!op) return { $error: `no operation ${String(query.method).toUpperCase()} ${query.path}` };
      return expand(operationPart(op, query.part));
    }
    case "operations":
      return operationsTable(artifact);
    case "operation": {
      const op = indexOf(artifact).byId.get(query.id);
      if (!op) return { $error: `no operation with id ${JSON.stringify(query.id)}; list them with specs.<api>.operations` };
      return expand(op as unknown as JsonValue);
    }
    case "schema": {
      const schema = artifact.schemas[query.name];
      if (!schema) return { $error: `no schema ${JSON.stringify(query.name)}; list them with specs.<api>.schemaNames` };
      return expand(schema);
    }
    case "schemaNames":
      return Object.keys(artifact.schemas);
    case "declaration": {
      const op = indexOf(artifact).byId.get(query.id);
      if (!op) return { $error: `no operation with id ${JSON.stringify(query.id)}` };
      return operationDeclaration("<api>", op, artifact);
    }
    case "find":
      return find(artifact, String(query.text ?? ""), Math.min(Math.max(Number(query.limit) || 20, 1), 200));
    default:
      return { $error: `unknown spec query ${JSON.stringify(query)}` };
  }
}

const operationTables = new WeakMap<Artifact, string>();

/**
 * The compact operations list as one tab-separated line per operation: id,
 * method, path, summary, tags, parameter names (`?` when optional, `body` for a
 * request body), deprecated. The search prelude turns it into objects. Parsing
 * this inside QuickJS costs a fifth of parsing the same list as JSON, and a scan
 * over GitHub's 1,223 operations is the search tool's most common program.
 */
function operationsTable(artifact: Artifact): string {
  let table = operationTables.get(artifact);
  if (table === undefined) {
    const clean = (text: string) => text.replace(/[\t\n\r]+/g, " ");
    table = artifact.operations
      .map((op) => {
        const parameters = op.parameters.map((p) => (p.required ? p.name : `${p.name}?`));
        if (op.requestBody) parameters.push(op.requestBody.required ? "body" : "body?");
        return [op.id, op.method.toUpperCase(), op.path, clean(op.summary ?? ""), op.tags.map(clean).join("\u001f"), parameters.map(clean).join("\u001f"), op.deprecated ? "1" : ""].join("\t");
      })
      .join("\n");
    operationTables.set(artifact, table);
  }
  return table;
}

function operationPart(op: Operation, part: OperationPart): JsonValue {
  switch (part) {
    case "parameters":
      return op.parameters as unknown as JsonValue;
    case "requestBody":
      return (op.requestBody ?? null) as unknown as JsonValue;
    case "responses":
      return op.responses as unknown as JsonValue;
    case "security":
      return op.security as unknown as JsonValue;
    case "servers":
      return (op.servers ?? null) as unknown as JsonValue;
    default:
      return { $error: `unknown operation part ${JSON.stringify(part)}` };
  }
}

const searchIndexes = new WeakMap<Artifact, OperationIndex>();

/** Operations ranked by how well they answer `text` (operation-search.ts), best first; built on the first find. */
function find(artifact: Artifact, text: string, limit: number): JsonValue {
  let index = searchIndexes.get(artifact);
  if (!index) searchIndexes.set(artifact, (index = buildOperationIndex(artifact.operations)));
  return index
    .search(text, limit)
    .map(({ op }) => ({ id: op.id, method: op.method.toUpperCase(), path: op.path, summary: op.summary ?? null, tags: op.tags, deprecated: op.deprecated }));
}
