/** UI-only preferences (pane sizes, toggles) in localStorage; the host keeps everything that matters. */
import { useEffect, useState } from "react";

export function usePersisted<T>(key: string, initial: T): [T, (value: T) => void] {
  const [value, setValue] = useState<T>(() => {
    try {
      const raw = localStorage.getItem(`workbench.${key}`);
      return raw === null ? initial : (JSON.parse(raw) as T);
    } catch {
      return initial;
    }
  });
  useEffect(() => {
    try {
      localStorage.setItem(`workbench.${key}`, JSON.stringify(value));
    } catch {
      // Storage may be full or disabled; the preference just does not stick.
    }
  }, [key, value]);
  return [value, setValue];
}
