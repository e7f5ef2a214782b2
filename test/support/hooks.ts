import { startSharedPostgres, stopSharedPostgres } from './postgres';

/** One embedded Postgres per mocha run; each test runtime gets a fresh database inside it. */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    await startSharedPostgres();
  },
  async afterAll(this: Mocha.Context) {
    // Stopping waits for open connections to end; on a machine busy with other work that took over 60 s.
    this.timeout(180_000);
    await stopSharedPostgres();
  },
};
