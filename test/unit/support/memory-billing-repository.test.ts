import { describe } from "vitest";
import { describeBillingRepositoryContract } from "../../support/billing-repository-contract";
import { describeDocumentStoreContract } from "../../support/document-store-contract";
import { MemoryBillingRepository } from "../../support/memory-billing-repository";
import { describeSettlementStoreContract } from "../../support/settlement-store-contract";

describe("the repository contract, in memory", () => {
  describeBillingRepositoryContract(async (options) => new MemoryBillingRepository(options));
  describeDocumentStoreContract(async () => new MemoryBillingRepository());
  describeSettlementStoreContract(async () => new MemoryBillingRepository());
});
