import { SESv2Client, SESv2ServiceException, SendEmailCommand } from "@aws-sdk/client-sesv2";
import type { Mailer } from "../../core/ports/mailer";
import { type MailLinks, type MailSender, renderMail } from "../../mail/render-mail";
import type { SdkClientHost } from "./sdk-clients";

export interface SesMailerOptions {
  readonly client: SESv2Client;
  /** The sender (an identity verified in SES). */
  readonly from: string;
  readonly replyTo?: string;
  readonly sender: MailSender;
  readonly configurationSet?: string;
  readonly links: MailLinks;
}

/** SES tags take letters, digits, `_` and `-` only. */
const tagValue = (value: string): string => value.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 256);

/**
 * Mails through SES v2 (SendEmail, simple content: a subject, plain text and HTML). The mail's template and id ride
 * as tags, so SES's event destinations (bounces, complaints) name them. An error SES answered is a refusal (nothing
 * sent); a timeout or a lost connection is thrown, its outcome unknown.
 */
export function createSesMailer(options: SesMailerOptions): Mailer {
  return {
    async send(mail) {
      const rendered = renderMail(mail, options.sender, options.links);
      const content = (data: string) => ({ Data: data, Charset: "UTF-8" });
      try {
        await options.client.send(
          new SendEmailCommand({
            FromEmailAddress: options.from,
            Destination: { ToAddresses: [mail.subscription.customer.email] },
            ReplyToAddresses: options.replyTo === undefined ? undefined : [options.replyTo],
            Content: {
              Simple: {
                Subject: content(rendered.subject),
                Body: { Text: content(rendered.text), Html: content(rendered.html) },
              },
            },
            EmailTags: [
              { Name: "template", Value: mail.template },
              { Name: "mail_id", Value: tagValue(mail.mail_id) },
              ...(mail.event_id === undefined ? [] : [{ Name: "event_id", Value: tagValue(mail.event_id) }]),
            ],
            ConfigurationSetName: options.configurationSet,
          }),
        );
        return { kind: "sent" };
      } catch (error) {
        if (error instanceof SESv2ServiceException && error.$metadata.httpStatusCode !== undefined)
          return { kind: "refused", reason: error.name };
        throw error;
      }
    },
  };
}

/** The host's SES v2 client. */
export function sesClientOf(host: SdkClientHost): SESv2Client {
  return host.client("sesv2", () => new SESv2Client(host.clientConfig("sesv2")));
}
