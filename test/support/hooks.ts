import { startSharedPostgres, stopSharedPostgres } from './postgres';

/** One embedded Postgres per mocha run; each test runtime gets a fresh database inside it. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    await startSharedPostgres();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopSharedPostgres();
  },
};
