/** A quoted SQL identifier. The names come from the code (tables, columns, fixed sort keys), never from a request. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
