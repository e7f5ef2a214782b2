import express, { type RequestHandler } from 'express';
import { AppError } from '../domain/errors';

/**
 * A known path with a method none of its routes declares: a coded 405 whose Allow names every method some route
 * of that path serves (several route patterns can match one path: their union). `methodsByPath` maps Express
 * paths to upper-case methods. The handlers pass anything else on (an unknown path: the 404 after them).
 */
export function methodNotAllowed(methodsByPath: Map<string, Set<string>>): RequestHandler[] {
  // Express's own matcher (case-sensitive, trailing slash allowed, as the routes), so "known" means what the routes mean.
  const known = express.Router({ caseSensitive: true, strict: false });
  for (const [p, methods] of methodsByPath) {
    known.all(p, (_req, res, next) => {
      const allowed = (res.locals.allowedMethods ??= new Set<string>()) as Set<string>;
      for (const m of methods) allowed.add(m);
      next();
    });
  }
  const answer: RequestHandler = (req, res, next) => {
    const allowed = res.locals.allowedMethods as Set<string> | undefined;
    if (!allowed || allowed.has(req.method)) return next();
    const allow = [...allowed].sort().join(', ');
    next(new AppError(405, 'method_not_allowed', `${req.method} is not served on ${req.baseUrl}${req.path}; it serves ${allow}.`, [], {}, { Allow: allow }));
  };
  return [known, answer];
}

/** Adds a route's method to `methodsByPath`; a GET route also answers HEAD (Express does). */
export function addAllowedMethod(methodsByPath: Map<string, Set<string>>, expressPath: string, method: string): void {
  let methods = methodsByPath.get(expressPath);
  if (!methods) methodsByPath.set(expressPath, (methods = new Set()));
  methods.add(method.toUpperCase());
  if (method.toUpperCase() === 'GET') methods.add('HEAD');
}
