/**
 * The demo pet store's state and rules, apart from HTTP so each rule reads on
 * its own. Everything petstore.yaml promises is checked here (required fields,
 * enums, lengths, unknown fields), so the demo is a strict upstream that shows
 * what a validation error from a real API looks like.
 */
export const PET_STATUSES = ["available", "pending", "sold"] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

export const CATEGORIES = [
  { id: 1, name: "dogs" },
  { id: 2, name: "cats" },
  { id: 3, name: "birds" },
  { id: 4, name: "fish" },
];

export interface Pet {
  id: number;
  name: string;
  status: PetStatus;
  category?: { id: number; name: string };
  tags: string[];
  birthDate: string | null;
  createdAt: string;
}

export interface Order {
  id: number;
  petId: number;
  quantity: number;
  status: "placed";
  placedAt: string;
}

/** A failure the server sends as `{code, message}` with this status. */
export class DemoError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const SEED: [string, PetStatus, number, string[], string | null][] = [
  ["Rex", "available", 1, ["dog", "large"], "2019-04-02"],
  ["Whiskers", "available", 2, ["cat"], "2021-07-15"],
  ["Tweety", "sold", 3, ["bird", "small"], "2022-01-30"],
  ["Nemo", "available", 4, ["fish", "small"], null],
  ["Bella", "pending", 1, ["dog"], "2020-11-11"],
  ["Luna", "available", 2, ["cat", "black"], "2018-03-21"],
  ["Kiwi", "available", 3, ["bird"], null],
  ["Max", "sold", 1, ["dog", "large"], "2016-08-08"],
  ["Dory", "available", 4, ["fish"], "2023-02-14"],
  ["Simba", "available", 2, ["cat", "large"], "2020-06-01"],
  ["Buddy", "available", 1, ["dog", "small"], "2022-09-09"],
  ["Coco", "pending", 3, ["bird", "large"], "2017-12-24"],
];

export class PetStore {
  private readonly pets = new Map<number, Pet>();
  private readonly orders = new Map<number, Order>();
  private nextPetId = 1;
  private nextOrderId = 1;
  private readonly now: () => Date;

  constructor(now: () => Date = () => new Date()) {
    this.now = now;
    const seededAt = "2024-01-01T00:00:00.000Z";
    for (const [name, status, categoryId, tags, birthDate] of SEED) {
      const id = this.nextPetId++;
      this.pets.set(id, { id, name, status, category: categoryFor(categoryId), tags, birthDate, createdAt: seededAt });
    }
  }

  listPets(query: URLSearchParams): { items: Pet[]; total: number; limit: number; offset: number; nextOffset: number | null } {
    const limit = integerParam(query, "limit", 20, 1, 100);
    const offset = integerParam(query, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
    const status = query.get("status");
    if (status !== null) checkStatus(status, "status");
    const tag = query.get("tag");
    const name = query.get("name");
    if (name === "") throw new DemoError(400, "bad_request", "name must not be empty");
    const matching = [...this.pets.values()].filter(
      (p) => (status === null || p.status === status) && (tag === null || p.tags.includes(tag)) && (name === null || p.name.toLowerCase().includes(name.toLowerCase())),
    );
    const items = matching.slice(offset, offset + limit);
    return { items, total: matching.length, limit, offset, nextOffset: offset + limit < matching.length ? offset + limit : null };
  }

  findByStatus(query: URLSearchParams): Pet[] {
    const status = query.get("status");
    if (status === null) throw new DemoError(400, "bad_request", "the status query parameter is required");
    checkStatus(status, "status");
    return [...this.pets.values()].filter((p) => p.status === status);
  }

  getPet(id: number): Pet {
    const pet = this.pets.get(id);
    if (!pet) throw new DemoError(404, "not_found", `no pet with id ${id}`);
    return pet;
  }

  createPet(body: unknown): Pet {
    const fields = checkPetFields(body, { requireName: true, allowNullBirthDate: false });
    const id = this.nextPetId++;
    const pet: Pet = { id, name: fields.name!, status: fields.status ?? "available", tags: fields.tags ?? [], birthDate: fields.birthDate ?? null, createdAt: this.now().toISOString() };
    if (fields.categoryId !== undefined) pet.category = categoryFor(fields.categoryId);
    this.pets.set(id, pet);
    return pet;
  }

  updatePet(id: number, body: unknown): Pet {
    const pet = this.getPet(id);
    const fields = checkPetFields(body, { requireName: false, allowNullBirthDate: true });
    if (Object.keys(fields).length === 0) throw new DemoError(400, "bad_request", "give at least one field to change");
    if (fields.name !== undefined) pet.name = fields.name;
    if (fields.status !== undefined) pet.status = fields.status;
    if (fields.tags !== undefined) pet.tags = fields.tags;
    if (fields.birthDate !== undefined) pet.birthDate = fields.birthDate;
    if (fields.categoryId !== undefined) pet.category = categoryFor(fields.categoryId);
    return pet;
  }

  deletePet(id: number): void {
    this.getPet(id);
    this.pets.delete(id);
    for (const [orderId, order] of this.orders) if (order.petId === id) this.orders.delete(orderId);
  }

  inventory(): Record<PetStatus, number> {
    const counts: Record<PetStatus, number> = { available: 0, pending: 0, sold: 0 };
    for (const pet of this.pets.values()) counts[pet.status] += 1;
    return counts;
  }

  placeOrder(body: unknown): Order {
    const input = checkObject(body, ["petId", "quantity"]);
    if (input.petId === undefined) throw new DemoError(400, "bad_request", "petId is required");
    if (!isWholeNumber(input.petId) || input.petId < 1) throw new DemoError(400, "bad_request", "petId must be an integer of at least 1");
    if (input.quantity !== undefined && input.quantity !== 1) throw new DemoError(400, "bad_request", "quantity must be 1 (pets are unique)");
    const pet = this.getPet(input.petId);
    if (pet.status !== "available") throw new DemoError(409, "conflict", `pet ${pet.id} is ${pet.status}, not available`);
    pet.status = "pending";
    const order: Order = { id: this.nextOrderId++, petId: pet.id, quantity: 1, status: "placed", placedAt: this.now().toISOString() };
    this.orders.set(order.id, order);
    return order;
  }

  getOrder(id: number): Order {
    const order = this.orders.get(id);
    if (!order) throw new DemoError(404, "not_found", `no order with id ${id}`);
    return order;
  }

  cancelOrder(id: number): void {
    const order = this.getOrder(id);
    this.orders.delete(id);
    const pet = this.pets.get(order.petId);
    if (pet?.status === "pending") pet.status = "available";
  }
}

interface PetFields {
  name?: string;
  status?: PetStatus;
  categoryId?: number;
  tags?: string[];
  birthDate?: string | null;
}

function checkPetFields(body: unknown, rules: { requireName: boolean; allowNullBirthDate: boolean }): PetFields {
  const input = checkObject(body, ["name", "status", "categoryId", "tags", "birthDate"]);
  const out: PetFields = {};
  if (input.name !== undefined) {
    if (typeof input.name !== "string" || input.name.length < 1 || input.name.length > 100) throw new DemoError(400, "bad_request", "name must be a string of 1 to 100 characters");
    out.name = input.name;
  } else if (rules.requireName) {
    throw new DemoError(400, "bad_request", "name is required");
  }
  if (input.status !== undefined) out.status = checkStatus(input.status, "status");
  if (input.categoryId !== undefined) {
    if (!isWholeNumber(input.categoryId) || !CATEGORIES.some((c) => c.id === input.categoryId)) {
      throw new DemoError(400, "bad_request", `categoryId must be one of ${CATEGORIES.map((c) => `${c.id} (${c.name})`).join(", ")}`);
    }
    out.categoryId = input.categoryId;
  }
  if (input.tags !== undefined) {
    if (!Array.isArray(input.tags) || input.tags.length > 10 || !input.tags.every((t) => typeof t === "string" && t.length > 0)) {
      throw new DemoError(400, "bad_request", "tags must be a list of at most 10 non-empty strings");
    }
    out.tags = input.tags as string[];
  }
  if (input.birthDate !== undefined) {
    if (input.birthDate === null && rules.allowNullBirthDate) out.birthDate = null;
    else if (typeof input.birthDate === "string" && isDate(input.birthDate)) out.birthDate = input.birthDate;
    else throw new DemoError(400, "bad_request", "birthDate must be a date such as 2020-05-17");
  }
  return out;
}

function checkObject(body: unknown, allowed: string[]): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new DemoError(400, "bad_request", "the body must be a JSON object");
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw new DemoError(400, "bad_request", `unknown field ${unknown.map((k) => JSON.stringify(k)).join(", ")} (allowed: ${allowed.join(", ")})`);
  return body as Record<string, unknown>;
}

function checkStatus(value: unknown, what: string): PetStatus {
  if (typeof value === "string" && (PET_STATUSES as readonly string[]).includes(value)) return value as PetStatus;
  throw new DemoError(400, "bad_request", `${what} must be one of ${PET_STATUSES.join(", ")}`);
}

function integerParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || value < min || value > max) {
    throw new DemoError(400, "bad_request", `${name} must be an integer from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : " up"}`);
  }
  return value;
}

/** Path ids: a positive integer, or a 400 naming the parameter. */
export function parseId(raw: string, name: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || !Number.isSafeInteger(value)) throw new DemoError(400, "bad_request", `${name} must be a positive integer, not ${JSON.stringify(raw)}`);
  return value;
}

function isWholeNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value);
}

function isDate(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) && new Date(`${text}T00:00:00Z`).toISOString().startsWith(text);
}

function categoryFor(id: number): { id: number; name: string } {
  return { ...CATEGORIES.find((c) => c.id === id)! };
}
