/**
 * The window comes back where the person left it: its last normal bounds and
 * whether it was maximized, kept in the app's settings. Bounds saved on a
 * display that is gone (a laptop off its dock) are dropped rather than
 * opening the window off-screen.
 */
import type { WindowBounds } from "./settings.ts";

export const DEFAULT_SIZE = { width: 1440, height: 900 };
/** At least this much of the title bar must be on a display for saved bounds to be used. */
const VISIBLE_PX = 64;

/** Saved bounds if enough of them lies on one of `workAreas`; undefined otherwise (the window is centred at the default size). */
export function usableBounds(saved: WindowBounds | undefined, workAreas: readonly WindowBounds[]): WindowBounds | undefined {
  if (!saved) return undefined;
  const visible = workAreas.some((area) => {
    const overlapX = Math.min(saved.x + saved.width, area.x + area.width) - Math.max(saved.x, area.x);
    const titleOnScreen = saved.y >= area.y && saved.y < area.y + area.height - VISIBLE_PX / 2;
    return overlapX >= VISIBLE_PX && titleOnScreen;
  });
  if (!visible) return undefined;
  return { x: Math.round(saved.x), y: Math.round(saved.y), width: Math.max(200, Math.round(saved.width)), height: Math.max(150, Math.round(saved.height)) };
}

/** Calls `save` at most once per `delayMs` while the window moves or resizes, and at once on `flush`. */
export function debounced(save: () => void, delayMs = 500): { schedule(): void; flush(): void } {
  let timer: NodeJS.Timeout | undefined;
  return {
    schedule() {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        save();
      }, delayMs);
      timer.unref();
    },
    flush() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      save();
    },
  };
}
