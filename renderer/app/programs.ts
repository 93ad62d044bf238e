/**
 * Programs in the editor tabs, kept by the host (`programs.list` /
 * `programs.save`) so they survive restarts. Edits save after a short pause,
 * and once more when the page goes away.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { SavedProgram } from "../../shared/contract.ts";
import { errorMessage, type Bridge } from "../bridge/index.ts";

const SAVE_DELAY_MS = 500;

export const DEFAULT_PROGRAM = (api: string | undefined) =>
  api === "petstore"
    ? `// A program calls APIs through the host: apis.<api>.<operation>({ ...params, body }).
// Reads go straight through; writes wait for your approval in the inbox.
const page = await apis.petstore.listPets({ limit: 5 });
console.log(\`\${page.body.items.length} pets on the first page\`);
return page.body.items.map((pet) => ({ id: pet.id, name: pet.name, status: pet.status }));
`
    : api
      ? `// A program calls APIs through the host: apis.${api}.<operation>({ ...params, body }).
// Type "apis.${api}." to see the operations. Reads go straight through; writes wait for your approval.
`
      : `// Add an API first (the + button on the left), then call it here as apis.<name>.<operation>({ ...params }).
`;

export interface ProgramsState {
  programs: SavedProgram[];
  loaded: boolean;
  error: string | undefined;
  create(partial?: Partial<SavedProgram>): SavedProgram;
  update(id: string, patch: Partial<SavedProgram>): void;
  remove(id: string): SavedProgram | undefined;
  restore(program: SavedProgram, index: number): void;
}

export function usePrograms(bridge: Bridge): ProgramsState {
  const [programs, setPrograms] = useState<SavedProgram[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string>();
  const latest = useRef(programs);
  latest.current = programs;
  const dirty = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    bridge.api["programs.list"]({}).then(
      (list) => {
        setPrograms(list);
        setLoaded(true);
      },
      (err: unknown) => {
        setError(`Could not load your saved programs: ${errorMessage(err)}`);
        setLoaded(true);
      },
    );
  }, [bridge]);

  const save = useCallback(() => {
    clearTimeout(timer.current);
    if (!dirty.current) return;
    dirty.current = false;
    bridge.api["programs.save"]({ programs: latest.current.slice(0, 100) }).then(
      (ack) => setError(ack.ok ? undefined : `Programs not saved: ${ack.message}`),
      (err: unknown) => {
        dirty.current = true;
        setError(`Programs not saved: ${errorMessage(err)}`);
      },
    );
  }, [bridge]);

  const schedule = useCallback(() => {
    dirty.current = true;
    clearTimeout(timer.current);
    timer.current = setTimeout(save, SAVE_DELAY_MS);
  }, [save]);

  useEffect(() => {
    const flush = () => {
      if (dirty.current) bridge.sendOnExit("programs.save", { programs: latest.current.slice(0, 100) });
      dirty.current = false;
    };
    window.addEventListener("pagehide", flush);
    return () => window.removeEventListener("pagehide", flush);
  }, [bridge]);

  const set = (next: SavedProgram[]) => {
    latest.current = next;
    setPrograms(next);
    schedule();
  };

  return {
    programs,
    loaded,
    error,
    create(partial = {}) {
      const used = new Set(latest.current.map((p) => p.name));
      let n = latest.current.length + 1;
      while (used.has(`Program ${n}`)) n++;
      const program: SavedProgram = { id: `p${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`, name: `Program ${n}`, code: "", policy: "read_only", ...partial };
      set([...latest.current, program]);
      return program;
    },
    update(id, patch) {
      set(latest.current.map((p) => (p.id === id ? { ...p, ...patch } : p)));
    },
    remove(id) {
      const gone = latest.current.find((p) => p.id === id);
      set(latest.current.filter((p) => p.id !== id));
      return gone;
    },
    restore(program, index) {
      const next = [...latest.current];
      next.splice(Math.min(index, next.length), 0, program);
      set(next);
    },
  };
}
