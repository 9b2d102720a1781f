import { SUCCESS_RESCODE } from "./result";

/**
 * What a merchant answers the gateway's status_url delivery: form-encoded text, `rescode=0000&resmsg=Success` once
 * the result is taken (README, The real gateway); the gateway sends the result again on any other answer.
 */
export function statusReply(rescode: string, resmsg: string): string {
  return new URLSearchParams({ rescode, resmsg }).toString();
}

export const STATUS_RECEIVED_REPLY = statusReply(SUCCESS_RESCODE, "Success");
