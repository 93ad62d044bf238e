/** Where in a program a call happens: the inbox marks that line. The host does not record lines, so this reads the text. */

/** The 1-based lines where a program calls an operation, best guess from its text. */
export function linesCalling(code: string, operationId: string | undefined, operation: string): number[] {
  const lines = code.split("\n");
  const hits = (test: (line: string) => boolean) => lines.flatMap((l, i) => (test(l) ? [i + 1] : []));
  if (operationId) {
    const id = operationId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const byId = hits((l) => new RegExp(`\\.${id}\\s*\\(`).test(l));
    if (byId.length) return byId;
  }
  const space = operation.indexOf(" ");
  const method = operation.slice(0, space).toUpperCase();
  const path = operation.slice(space + 1);
  const staticPart = path.split("{")[0]!.replace(/\/$/, "");
  return hits((l) => /\brequest\s*\(/.test(l) || (!!staticPart && l.includes(staticPart) && l.toUpperCase().includes(method)));
}
