/** A UUID in its text form, either case: what an id path or filter must look like before a uuid column is asked for it. */
export const UUID_ANY_CASE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
