import type { ApiResponse } from "../../functions/api/errors";
import type {
  IdempotencyOutcome,
  IdempotencyStore,
  IdempotentRequest,
} from "../../functions/core/ports/idempotency-store";

/** The IdempotencyStore's contract in memory, for unit tests (the DynamoDB store is tested on dynalite). */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly records = new Map<string, { fingerprint: string; response?: ApiResponse }>();

  async run(request: IdempotentRequest, work: () => Promise<ApiResponse>): Promise<IdempotencyOutcome> {
    const existing = this.records.get(request.key);
    if (existing) {
      if (existing.fingerprint !== request.fingerprint) return { kind: "mismatch" };
      if (!existing.response) return { kind: "in_progress" };
      return { kind: "completed", response: existing.response, replayed: true };
    }
    const record: { fingerprint: string; response?: ApiResponse } = { fingerprint: request.fingerprint };
    this.records.set(request.key, record);
    try {
      record.response = await work();
    } catch (error) {
      this.records.delete(request.key);
      throw error;
    }
    return { kind: "completed", response: record.response, replayed: false };
  }
}
