/** Keeps Monaco's `.d.ts` of the registered APIs current: loaded once, reloaded when the registry changes. */
import { useEffect, useState } from "react";
import { errorMessage } from "../bridge/index.ts";
import { useEvents, useWorkbench } from "../app/workbench-context.tsx";
import { setDeclarations } from "./monaco.ts";

let loaded: Promise<void> | undefined;
let lastError: string | undefined;

export function useDeclarations(): string | undefined {
  const api = useWorkbench();
  const [error, setError] = useState(lastError);
  const load = (force: boolean) => {
    if (!loaded || force) {
      loaded = api["apis.declarations"]({}).then(
        ({ dts }) => {
          lastError = undefined;
          setDeclarations(dts);
        },
        (err: unknown) => {
          lastError = `Completions for the APIs are unavailable: ${errorMessage(err)}`;
          loaded = undefined;
        },
      );
    }
    void loaded?.then(() => setError(lastError));
  };
  useEffect(() => load(false), []);
  useEvents((event) => {
    // The .d.ts names vault items too, so both kinds of change refresh it.
    if (event.type === "apis.changed" || event.type === "vault.changed") load(true);
  });
  return error;
}
