import { describe } from "vitest";
import { describeBillingRepositoryContract } from "../../support/billing-repository-contract";
import { MemoryBillingRepository } from "../../support/memory-billing-repository";

describe("the repository contract, in memory", () => {
  describeBillingRepositoryContract(async (options) => new MemoryBillingRepository(options));
});
