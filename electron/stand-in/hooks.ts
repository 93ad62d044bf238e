/**
 * Module-resolution hooks (node:module `register`) for the stand-in run:
 * `electron` resolves to the stand-in, and any module the app loads from this
 * checkout (other than the stand-in itself) is an error, so a bundle that
 * still reached into the source tree fails the test instead of passing by
 * accident.
 */
interface ResolveContext {
  parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<{ url: string }>;

let standIn = "";
let checkout = "";
let standInDir = "";

export function initialize(data: { standIn: string; checkout: string }): void {
  standIn = data.standIn;
  checkout = data.checkout;
  standInDir = new URL("./", standIn).href;
}

export async function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<{ url: string; shortCircuit?: boolean }> {
  if (specifier === "electron") return { url: standIn, shortCircuit: true };
  const resolved = await next(specifier, context);
  const fromStandIn = context.parentURL?.startsWith(standInDir) ?? false;
  if (resolved.url.startsWith(checkout) && !resolved.url.startsWith(standInDir) && !fromStandIn) {
    throw new Error(`the relocated app loaded ${resolved.url} from the source checkout (imported as "${specifier}" by ${context.parentURL ?? "the entry"})`);
  }
  return resolved;
}
