/**
 * A worker's parsed datasets, by content key, least recently used first out.
 * Parsing a 13 MB artifact costs ~100 ms, so a worker keeps what it parsed;
 * the bound (in characters of JSON, a proxy for the heap the parse takes)
 * stops a long session of many APIs from growing a worker without end.
 */
export class DatasetCache {
  private readonly entries = new Map<string, { data: unknown; chars: number }>();
  private chars = 0;
  private readonly maxChars: number;

  constructor(maxChars: number) {
    this.maxChars = maxChars;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The parsed data, marked as just used. */
  get(key: string): unknown {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.data;
  }

  /** Parses and keeps `text`; evicts the least recently used keys not in `keep`. Throws on invalid JSON. */
  add(key: string, text: string, keep: ReadonlySet<string>): void {
    const data: unknown = JSON.parse(text);
    const old = this.entries.get(key);
    if (old) this.chars -= old.chars;
    this.entries.delete(key);
    this.entries.set(key, { data, chars: text.length });
    this.chars += text.length;
    for (const [k, entry] of this.entries) {
      if (this.chars <= this.maxChars) break;
      if (keep.has(k) || k === key) continue;
      this.entries.delete(k);
      this.chars -= entry.chars;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get totalChars(): number {
    return this.chars;
  }
}
