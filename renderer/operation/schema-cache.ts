/**
 * Component schemas fetched one at a time (`apis.schema`) as a tree opens them,
 * so a 13 MB spec never crosses the bridge whole. Cached per API until the
 * registry changes.
 */
import { useEffect, useState } from "react";
import type { JsonSchema } from "../../shared/artifact.ts";
import type { WorkbenchApi } from "../../shared/contract.ts";
import { errorMessage } from "../bridge/index.ts";
import { useEvents, useWorkbench } from "../app/workbench-context.tsx";

const cache = new Map<string, Promise<JsonSchema | null>>();

export function loadSchema(api: WorkbenchApi, apiName: string, name: string): Promise<JsonSchema | null> {
  const key = `${apiName}\u0000${name}`;
  let hit = cache.get(key);
  if (!hit) {
    hit = api["apis.schema"]({ api: apiName, name });
    hit.catch(() => cache.delete(key));
    cache.set(key, hit);
  }
  return hit;
}

export function useSchemaCacheReset(): void {
  useEvents((event) => {
    if (event.type === "apis.changed") cache.clear();
  });
}

export function useSchema(apiName: string, name: string | undefined): { schema?: JsonSchema | null; error?: string } {
  const api = useWorkbench();
  const [state, setState] = useState<{ name?: string; schema?: JsonSchema | null; error?: string }>({});
  useEffect(() => {
    if (!name) return;
    let live = true;
    loadSchema(api, apiName, name).then(
      (schema) => live && setState({ name, schema }),
      (err: unknown) => live && setState({ name, error: errorMessage(err) }),
    );
    return () => {
      live = false;
    };
  }, [api, apiName, name]);
  return state.name === name ? { schema: state.schema, error: state.error } : {};
}
