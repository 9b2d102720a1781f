import type { IncomingHttpHeaders } from "node:http";
import type { Ledger } from "../state/ledger";
import type { Merchant, MerchantRegistry } from "../state/merchant-config";
import type { SandboxClock } from "../time/clock";
import type { AuthKind } from "./routes";

/** Who is calling, by the route's kind of authentication; undefined when the credentials name no merchant. */
export function authenticate(
  auth: AuthKind,
  headers: IncomingHttpHeaders,
  { merchants, ledger, clock }: { merchants: MerchantRegistry; ledger: Ledger; clock: SandboxClock },
): Merchant | undefined {
  switch (auth) {
    case "basic": {
      const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(headers.authorization ?? "");
      const decoded = match?.[1] ? Buffer.from(match[1], "base64").toString("utf8") : "";
      // base64(apiKey + ":"): the API key as user name, an empty password.
      return decoded.endsWith(":") ? merchants.byApiKey(decoded.slice(0, -1)) : undefined;
    }
    case "partner-api-key": {
      const apiKey = headers.apikey;
      return typeof apiKey === "string" ? merchants.byPartnerApiKey(apiKey) : undefined;
    }
    case "partner-bearer": {
      const token = /^Bearer (\S+)$/i.exec(headers.authorization ?? "")?.[1];
      const issued = token === undefined ? undefined : ledger.partner.verifyToken(token, clock.now());
      return issued && merchants.byMid(issued.mid);
    }
    case "none":
      return undefined;
  }
}
