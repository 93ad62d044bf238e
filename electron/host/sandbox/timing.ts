/**
 * The timing cells a worker shares with the pool (see WorkerInit.timing), and
 * the clock both sides write them with: epoch microseconds, comparable across
 * threads (each thread's performance.now() has its own origin).
 */
export const CPU_MICROS = 0;
export const SEGMENT_START_MICROS = 1;

export function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}
