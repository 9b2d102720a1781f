import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { z } from "zod";
import { type AwsJsonServer, readBody } from "./aws-json-server";
import { listenOnLoopback } from "./loopback-server";

const content = z.looseObject({ Data: z.string() });

/** SendEmail's input as the SDK writes it (simple content only: what our mailer sends). */
const sendEmailInput = z.looseObject({
  FromEmailAddress: z.string().min(1),
  Destination: z.looseObject({ ToAddresses: z.array(z.string().min(1)).min(1).max(50) }),
  ReplyToAddresses: z.array(z.string()).optional(),
  Content: z.looseObject({
    Simple: z.looseObject({
      Subject: content,
      Body: z.looseObject({ Text: content.optional(), Html: content.optional() }),
    }),
  }),
  EmailTags: z
    .array(
      z.looseObject({ Name: z.string().regex(/^[\w-]{1,256}$/), Value: z.string().regex(/^[\w-]{1,256}$/) }),
    )
    .optional(),
});

/** A mail as the stand-in kept it: what GET /local/mail shows. */
export interface KeptMail {
  readonly message_id: string;
  /** Our template (the mail's `template` tag). */
  readonly template?: string;
  readonly mail_id?: string;
  readonly event_id?: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly reply_to?: readonly string[];
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly sent_at: string;
}

export interface SesStandIn extends AwsJsonServer {
  /** Every mail sent, oldest first. */
  readonly mails: KeptMail[];
  /**
   * Asked at every send: an error type to refuse it with (TooManyRequestsException answers 429, any other 400), or
   * undefined to take it. Takes every mail unless replaced.
   */
  refusal: () => string | undefined;
  /** Sends refused so far. */
  refused: number;
}

const OUTBOUND_EMAILS = "/v2/email/outbound-emails";

/**
 * SES v2's SendEmail in its REST-JSON protocol (POST /v2/email/outbound-emails), keeping every mail, so the mailer
 * built from the environment (AWS_ENDPOINT_URL_SESV2) sends for real in local mode and tests. `now` stamps sent_at
 * (the local clock).
 */
export async function startSesStandIn(now: () => Date): Promise<SesStandIn> {
  const mails: KeptMail[] = [];
  const state = { refusal: (): string | undefined => undefined, refused: 0 };
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const fail = (status: number, type: string, message: string): void => {
      response
        .writeHead(status, { "content-type": "application/json", "x-amzn-errortype": type })
        .end(JSON.stringify({ message }));
    };
    if (request.method !== "POST" || request.url !== OUTBOUND_EMAILS)
      return fail(404, "NotFoundException", `no operation at ${request.method} ${request.url}`);
    const refusal = state.refusal();
    if (refusal !== undefined) {
      state.refused += 1;
      return fail(refusal === "TooManyRequestsException" ? 429 : 400, refusal, "refused");
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return fail(400, "BadRequestException", "the body is not JSON");
    }
    const input = sendEmailInput.safeParse(json, { reportInput: false });
    if (!input.success) {
      const issue = input.error.issues[0];
      return fail(400, "BadRequestException", `${issue?.path.join(".")}: ${issue?.message}`);
    }
    const { FromEmailAddress, Destination, ReplyToAddresses, Content, EmailTags = [] } = input.data;
    const tag = (name: string) => EmailTags.find((entry) => entry.Name === name)?.Value;
    const message_id = randomUUID();
    mails.push({
      message_id,
      template: tag("template"),
      mail_id: tag("mail_id"),
      event_id: tag("event_id"),
      from: FromEmailAddress,
      to: Destination.ToAddresses,
      reply_to: ReplyToAddresses,
      subject: Content.Simple.Subject.Data,
      text: Content.Simple.Body.Text?.Data ?? "",
      html: Content.Simple.Body.Html?.Data ?? "",
      sent_at: now().toISOString(),
    });
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ MessageId: message_id }));
  });
  return Object.assign(state, { mails }, await listenOnLoopback(server, "the SES stand-in"));
}
