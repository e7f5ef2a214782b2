import { ident } from '../../infra/postgres/sql-ident';

/**
 * The values of one statement and their `$n` placeholders. The catalog list writes its SQL as text
 * around these instead of through knex: compiling the query builder was the largest single cost of a
 * page in node (a quarter of the API's CPU for a ten-name `...Contains` union). Values are numbered in
 * the order they are added, and each caller writes its text in that same order, so equal requests
 * give equal statements (one prepared statement per shape).
 */
export class SqlParams {
  readonly values: unknown[] = [];

  /** A placeholder for `value`. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** `"column" in ($1, ...)`; an empty list matches nothing. */
  in(column: string, values: readonly unknown[]): string {
    if (!values.length) return '1 = 0';
    let list = '';
    for (let i = 0; i < values.length; i++) list += (i ? ', ' : '') + this.add(values[i]);
    return `${ident(column)} in (${list})`;
  }

  /** `"column" <op> $n`. */
  compare(column: string, op: '=' | '<>' | '<' | '<=' | '>' | '>=', value: unknown): string {
    return `${ident(column)} ${op} ${this.add(value)}`;
  }
}


/** A conjunction of predicates as a WHERE clause, or nothing. */
export function whereClause(predicates: readonly string[]): string {
  return predicates.length ? ` where ${predicates.join(' and ')}` : '';
}
