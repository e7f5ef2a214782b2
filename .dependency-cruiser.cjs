/**
 * The layer rule (issue 21), checked by `npm run lint:layers` (part of `npm run lint`).
 *
 * Each layer lists what it may import from the project; anything else of the project is a violation,
 * type-only imports included (tsPreCompilationDeps). npm packages and Node's own modules are not layers
 * and stay free. The wiring (composition root, features, CLI, server, runtime, config) may import
 * anything, and nothing outside it may import it. No import cycles anywhere.
 *
 * Layers, bottom up:
 *   src/domain        events, values, enums, errors, deciders' types      → domain
 *   src/ports         port interfaces and the container identifiers       → ports, domain
 *   src/util          small utilities (logger, process helpers)           → util
 *   infra/postgres    the Postgres toolkit                                → + domain, ports, util
 *   src/read-models   read-model schema and the look-ups both sides need  → + domain, ports, util, infra/postgres
 *   src/http          the HTTP kernel and shared HTTP schemas             → + read-models
 *   commands          deciders, command handlers, write routes            → + read-models, http
 *   projections       projectors and the engine                           → + read-models
 *   queries           read handlers                                       → + read-models, http
 *   infra/<adapter>   adapters implementing ports                         → + read-models, its own folder
 *
 * No baseline: every violation fails `npm run lint`.
 */

const PROJECT = '^(src|commands|projections|queries|infra)/';
const DOMAIN = '^src/domain/';
const PORTS = '^src/ports/';
const UTIL = '^src/util/';
const READ_MODELS = '^src/read-models/';
const HTTP = '^src/http/';
const PG_KIT = '^infra/postgres/';
// The wiring: src/container.ts, src/features* (features.ts and src/features/), src/cli/ (with the demo seeding),
// src/server.ts, src/runtime.ts, src/config.ts, src/readiness.ts, src/decisions.ts.
const WIRING = ['^src/(container|server|runtime|config|readiness|decisions)\\.ts$', '^src/features', '^src/cli/'];

/** A layer's rule: from its files, no project import outside what it may use. */
const layer = (name, comment, from, allowed) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: PROJECT, pathNot: allowed },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles anywhere (type-only imports count): what two modules share moves to a module both import.',
      severity: 'error',
      from: { path: PROJECT },
      to: { circular: true },
    },
    {
      name: 'nothing-imports-the-wiring',
      comment: 'The composition root, features, CLI, server, runtime and config may use anything; nothing outside them imports them.',
      severity: 'error',
      from: { path: PROJECT, pathNot: WIRING },
      to: { path: WIRING },
    },
    {
      name: 'commands-take-plain-values',
      comment: 'Command services take plain values (a base URL, a principal), never Express objects: write routes translate a request through src/http.',
      severity: 'error',
      from: { path: '^commands/' },
      to: { path: '(^|/)node_modules/(@types/)?express/' },
    },
    layer('domain', 'src/domain imports nothing of the project outside src/domain.', DOMAIN, [DOMAIN]),
    layer('ports', 'src/ports imports only ports and the domain.', PORTS, [PORTS, DOMAIN]),
    layer('util', 'src/util imports only utilities.', UTIL, [UTIL]),
    layer('postgres-toolkit', 'infra/postgres (the Postgres toolkit) uses only domain, ports and util.', PG_KIT, [PG_KIT, DOMAIN, PORTS, UTIL]),
    layer('read-models', 'src/read-models uses domain, ports, util and the Postgres toolkit.', READ_MODELS, [READ_MODELS, DOMAIN, PORTS, UTIL, PG_KIT]),
    layer('http', 'src/http (the HTTP kernel, shared HTTP schemas) uses domain, ports, util, read-models and the Postgres toolkit.', HTTP, [
      HTTP,
      DOMAIN,
      PORTS,
      UTIL,
      READ_MODELS,
      PG_KIT,
    ]),
    layer(
      'commands',
      'commands/ use domain, ports, util, read-models, the HTTP kernel and the Postgres toolkit; never queries/, projections/, other adapters or the wiring.',
      '^commands/',
      ['^commands/', DOMAIN, PORTS, UTIL, READ_MODELS, HTTP, PG_KIT],
    ),
    layer(
      'projections',
      'projections/ use domain, ports, util, read-models and the Postgres toolkit; never commands/, queries/, adapters or the wiring.',
      '^projections/',
      ['^projections/', DOMAIN, PORTS, UTIL, READ_MODELS, PG_KIT],
    ),
    layer(
      'queries',
      'queries/ use domain, ports, util, read-models, the HTTP kernel and the Postgres toolkit; never commands/, projections/, adapters or the wiring.',
      '^queries/',
      ['^queries/', DOMAIN, PORTS, UTIL, READ_MODELS, HTTP, PG_KIT],
    ),
    // $1 is the adapter's folder (from.path's group): an adapter may use its own folder, not another adapter's.
    layer(
      'adapters',
      'infra/<adapter> implements ports: domain, ports, util, read-models, the Postgres toolkit and its own folder.',
      '^infra/(?!postgres/)([^/]+)/',
      ['^infra/$1/', DOMAIN, PORTS, UTIL, READ_MODELS, PG_KIT],
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|\\.cache|\\.data)/' },
    // Type-only imports are dependencies too: a layer that names another's types depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.d.ts', '.js', '.json'] },
  },
};
