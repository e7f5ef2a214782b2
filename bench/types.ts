/** One measured figure of a benchmark scenario, as printed in the table and saved under bench/results/. */
export interface BenchRow {
  scenario: string;
  metric: string;
  value: number;
  unit: string;
  /** The goal as text, e.g. ">= 4000" or "<= 20"; the runner marks met/missed. */
  goal?: string;
  note?: string;
}

export interface BenchContext {
  /** Scale factor from `npm run bench -- --quick` (small data, for a smoke run) or full. */
  quick: boolean;
  log(message: string): void;
}

/** A scenario module in bench/scenarios/ exports `scenario: BenchScenario`. */
export interface BenchScenario {
  name: string;
  /**
   * Node flags of the command the scenario measures (e.g. `ifrs import`'s BULK_NODE_FLAGS): the runner then
   * runs the scenario's file in a child node started with them, since V8 reads some only at start-up.
   */
  nodeFlags?: readonly string[];
  run(ctx: BenchContext): Promise<BenchRow[]>;
}
