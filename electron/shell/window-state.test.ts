import { describe, expect, it, vi } from "vitest";
import { debounced, usableBounds } from "./window-state.ts";

const laptop = { x: 0, y: 0, width: 1440, height: 900 };
const monitor = { x: 1440, y: 0, width: 2560, height: 1440 };

describe("window bounds", () => {
  it("keeps bounds whose title bar is on a display", () => {
    expect(usableBounds({ x: 100, y: 50, width: 1200, height: 800 }, [laptop])).toEqual({ x: 100, y: 50, width: 1200, height: 800 });
    expect(usableBounds({ x: 2000, y: 100, width: 1200, height: 800 }, [laptop, monitor])).toEqual({ x: 2000, y: 100, width: 1200, height: 800 });
    expect(usableBounds({ x: 1300.4, y: 10, width: 1000.6, height: 700 }, [laptop])).toEqual({ x: 1300, y: 10, width: 1001, height: 700 });
  });

  it("drops bounds left on a display that is gone, or with the title bar off screen", () => {
    expect(usableBounds({ x: 2000, y: 100, width: 1200, height: 800 }, [laptop])).toBeUndefined();
    expect(usableBounds({ x: 100, y: -400, width: 1200, height: 800 }, [laptop])).toBeUndefined();
    expect(usableBounds({ x: 100, y: 890, width: 1200, height: 800 }, [laptop])).toBeUndefined();
    expect(usableBounds(undefined, [laptop])).toBeUndefined();
  });

  it("saves once per burst of moves, and at once on flush", () => {
    vi.useFakeTimers();
    try {
      const save = vi.fn();
      const saver = debounced(save, 500);
      saver.schedule();
      saver.schedule();
      vi.advanceTimersByTime(499);
      expect(save).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(save).toHaveBeenCalledTimes(1);
      saver.schedule();
      saver.flush();
      expect(save).toHaveBeenCalledTimes(2);
      vi.advanceTimersByTime(1000);
      expect(save).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
