import { ident as quoteIdent } from './sql-ident';

/**
 * A piece of hand-written SQL with its values: the one way this code writes SQL by hand (knex's builder
 * stays where a builder is clearer: migrations, plain inserts, updates and selects). Built with the `sql`
 * tag: `${value}` is a parameter, `${sql`...`}` nests, `raw(...)` / `ident(...)` are trusted SQL text.
 *
 * Kept as its texts between the values (`texts.length === values.length + 1`) and numbered `$1..$n` in
 * reading order only when the statement's `text` is read, so nesting never renumbers and equal requests
 * give equal text (one prepared statement per shape: the catalog list and the search rely on that). A
 * piece costs a string concatenation, as the hand-numbered `$n` it replaces did.
 *
 * Not sql-template-tag (same idea, well kept): it ships as an ES module only, which this CommonJS build
 * cannot import statically.
 */
export class Sql {
  readonly texts: string[];
  readonly values: unknown[];
  private numbered: string | undefined;

  constructor(texts: readonly string[], values: readonly unknown[]) {
    const t = [texts[0]];
    const v: unknown[] = [];
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      if (value instanceof Sql) {
        t[t.length - 1] += value.texts[0];
        for (let j = 0; j < value.values.length; j++) {
          v.push(value.values[j]);
          t.push(value.texts[j + 1]);
        }
        t[t.length - 1] += texts[i + 1];
      } else {
        v.push(value);
        t.push(texts[i + 1]);
      }
    }
    this.texts = t;
    this.values = v;
  }

  /** The statement's text with `$n` placeholders, numbered in reading order. */
  get text(): string {
    if (this.numbered === undefined) {
      let s = this.texts[0];
      for (let i = 1; i < this.texts.length; i++) s += `$${i}${this.texts[i]}`;
      this.numbered = s;
    }
    return this.numbered;
  }

  /** True when the piece holds no SQL at all (an optional clause left out). */
  get isEmpty(): boolean {
    return this.texts.length === 1 && this.texts[0] === '';
  }
}

/** The tag: `${value}` becomes a `$n` parameter, a nested `Sql` is spliced in with its values. */
export function sql(texts: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql(texts, values);
}

/** Trusted SQL text, written as is: only text the code wrote (never a request's value). */
export function raw(text: string | number): Sql {
  return new Sql([String(text)], []);
}

/** A quoted identifier (table or column name from the code). */
export function ident(name: string): Sql {
  return raw(quoteIdent(name));
}

/** Nothing: an optional part left out. */
export const empty: Sql = raw('');

/** The parts one after another with `separator` (trusted text) between them; a value that is not `Sql` becomes a parameter. */
export function join(parts: readonly unknown[], separator = ', '): Sql {
  if (!parts.length) return empty;
  const texts = ['', ...Array<string>(parts.length - 1).fill(separator), ''];
  return new Sql(texts, parts);
}

/** `"column" in ($1, ...)`, one parameter per value; an empty list matches nothing (`1 = 0`). */
export function inList(column: string, values: readonly unknown[]): Sql {
  if (!values.length) return raw('1 = 0');
  return sql`${ident(column)} in (${join(values)})`;
}

/** A conjunction of predicates as a WHERE clause (with its leading space), or nothing. */
export function where(predicates: readonly Sql[]): Sql {
  return predicates.length ? sql` where ${join(predicates, ' and ')}` : empty;
}
