import { defineConfig } from "vitest/config";

// Four tiers, each a folder of test/ (test/unit, test/integration, test/e2e, test/infra) with its own vitest project
// and script (README, Test tiers); `npm test` runs them all. Inside a tier a test sits at the path of the file it
// tests, functions/ left out (test/unit/core/base/money.test.ts tests functions/core/base/money.ts).
// - unit: pure logic, no socket (test/support/no-sockets.ts makes opening one fail the test);
// - integration: the emulators and the sandbox, started by each file;
// - e2e: local mode as `npm start` runs it, the demo, the chaos run and the benchmarks at small sizes, and the
//   long billing runs (a year of renewals, the 10k fan-out);
// - infra: the CDK app synthesized and checked;
// - client: the typed client package's own tests (clients/node/test), no socket either.

export default defineConfig({
  test: {
    environment: "node",
    // Vitest's default is one worker fewer than the CPUs: one on a 2-core CI machine. Each test file's emulators run
    // in its own worker, which waits on sockets much of the time, so two workers keep both cores busy.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    restoreMocks: true,
    // A passing run prints the reporter's lines alone: console calls are shown for failed tests only, and what tests
    // write to stdout and stderr (the functions' JSON logs and EMF metrics) is held likewise (quiet-output.ts).
    silent: "passed-only",
    setupFiles: ["test/support/quiet-output.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          setupFiles: ["test/support/no-sockets.ts"],
        },
      },
      {
        extends: true,
        test: { name: "integration", include: ["test/integration/**/*.test.ts"] },
      },
      { extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"] } },
      { extends: true, test: { name: "infra", include: ["test/infra/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "client",
          include: ["clients/node/test/**/*.test.ts"],
          setupFiles: ["test/support/no-sockets.ts"],
        },
      },
    ],
  },
});
