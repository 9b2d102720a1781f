import { Duration, NestedStack } from "aws-cdk-lib";
import type { IHttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  SingleValueWidget,
  Stats,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import type { ChargeMetric } from "../functions/lambda/charge-metrics";
import { DEFAULT_SERVICE_NAME, METRICS_NAMESPACE } from "../functions/lambda/observability";
import type { BillingFunction } from "./billing-function";
import type { BillingConfig } from "./config";
import type { WorkQueue } from "./stateful-stack";

/** Metrics the handlers put (Powertools EMF, namespace Billing, dimension service). Names outside CHARGE_METRICS. */
type HandlerMetric =
  | ChargeMetric
  | "AttemptsDeferred"
  | "RefundsDeferred"
  | "SweepItemsFailed"
  | "SweepItemsOverdue"
  | "PartnerTokenHoursLeft"
  | "ReconciliationMismatches"
  | "GatewayWebhooksRejected"
  | "ChargebacksUnmatched"
  | "StatusCallbacksRejected"
  | "EventsDeliveredBySweep"
  | "OutboxDeliveriesFailed"
  | "WebhooksDelivered"
  | "WebhookAttemptsFailed"
  | "WebhookDeliveriesFailed";

/** Below this many charges in an hour the decline rate is not judged (one decline of two is not a trend). */
const DECLINE_RATE_MIN_CHARGES = 10;
const UNKNOWN_OUTCOMES_PER_HOUR = 5;
const WEBHOOK_REJECTIONS_PER_5_MIN = 10;
const PARTNER_TOKEN_MIN_HOURS = 2;
const QUEUE_MAX_AGE = Duration.hours(1);
/** The table stream's delivery falls behind: events reach the SaaS this much later than the state they announce. */
const EVENT_DELIVERY_MAX_AGE = Duration.minutes(5);

export interface BillingMonitoringProps {
  readonly functions: readonly BillingFunction[];
  /** Work queues by display name. */
  readonly queues: { readonly [name: string]: WorkQueue };
  /**
   * Our webhooks' delivery queue: apart from the work queues, as its messages wait out days of backoff by design (an
   * old message is no backlog); its dead letters and the failed deliveries alarm.
   */
  readonly webhookQueue: WorkQueue;
  readonly scheduleDeadLetters: IQueue;
  /** The table stream's failed batches (publish-events). */
  readonly eventDeadLetters: IQueue;
  /** Billing events a bus rule's target (notify-customer) could not take in a day of retries. */
  readonly ruleDeadLetters: IQueue;
  /** Our pages' HTTP API: a page that fails is a customer who cannot pay or fix a card. */
  readonly pagesApi: IHttpApi;
  readonly config: BillingConfig;
}

function billingMetric(metricName: HandlerMetric, statistic: string, period: Duration): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: DEFAULT_SERVICE_NAME },
    statistic,
    period,
  });
}

/** The MRR movements the delivered events carry (functions/lambda/revenue-metrics.ts), per currency. */
const REVENUE_MOVEMENTS = ["NewMRR", "ExpansionMRR", "ContractionMRR", "ChurnedMRR"] as const;

/**
 * A revenue metric of every currency (README, Revenue report): each is put with the dimension `currency` beside the
 * service's, and a currency appears with its first datapoint, so the graph searches them rather than naming them.
 */
function revenueSearch(metricName: string, statistic: string, label: string): MathExpression {
  return new MathExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},currency,service} MetricName="${metricName}" service="${DEFAULT_SERVICE_NAME}"', '${statistic}', 86400)`,
    label,
    usingMetrics: {},
    period: Duration.days(1),
  });
}

/**
 * On-call's view: an SNS topic (optionally e-mailed), one alarm per thing a human must act on — each description is
 * its runbook line — and one dashboard. A nested stack of the service stack: two alarms a function would take the
 * service stack past CloudFormation's 500 resources; nested, they count as one, and what they watch reaches them as
 * parameters CDK passes (no exports to pin).
 */
export class BillingMonitoring extends NestedStack {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: BillingMonitoringProps) {
    super(scope, id);
    this.topic = new Topic(this, "AlarmTopic", { displayName: "Billing alarms", enforceSSL: true });
    if (props.config.alarmEmail !== undefined) {
      this.topic.addSubscription(new EmailSubscription(props.config.alarmEmail));
    }
    this.#queueAlarms(props);
    this.#functionAlarms(props.functions);
    const rates = this.#chargeAlarms(props.config);
    this.#operationsAlarms();
    this.#eventDeliveryAlarms(props);
    this.#webhookAlarms(props);
    this.#pageAlarms(props);
    this.#dashboard(props, rates);
  }

  #webhookAlarms({ webhookQueue }: BillingMonitoringProps) {
    this.#alarm(
      "WebhookDeliveriesFailed",
      billingMetric("WebhookDeliveriesFailed", Stats.SUM, Duration.minutes(15)),
      {
        threshold: 0,
        runbook:
          "A webhook endpoint answered no 2xx to a delivery for 3 days of retries: the SaaS missed that event. GET /v1/webhook-endpoints/{id}/deliveries shows which (status failed, the last HTTP status or error); send-webhooks logs each attempt (delivery_id, endpoint_id, event_id). Once the endpoint is fixed, replay its events to it: npx billing events replay --from … --to … --endpoint <id> (consumers de-duplicate on event_id).",
      },
    );
    this.#alarm(
      "WebhookDeliveryDeadLetters",
      webhookQueue.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: Stats.MAXIMUM,
        period: Duration.minutes(5),
      }),
      {
        threshold: 0,
        runbook:
          "Webhook delivery DLQ not empty: send-webhooks itself kept failing on these messages (not the endpoint: its refusals are retried and then failed). Read its logs and its Errors alarm (the table unreachable, a malformed message), fix, then redrive the DLQ to the WebhookDelivery queue (npx billing --outputs cdk-outputs.json dlq redrive --queue webhook): a delivered event is never sent again, and a retrying one resumes where it was.",
      },
    );
  }

  #pageAlarms({ pagesApi }: BillingMonitoringProps) {
    this.#alarm(
      "PageErrors",
      pagesApi.metricServerError({ statistic: Stats.SUM, period: Duration.minutes(5) }),
      {
        threshold: 0,
        runbook:
          "A customer's page (hosted checkout, portal) answered 5xx: the customer saw an error page instead of paying or fixing a card. Read the serve-*-page function's logs ('page failed') and its Errors alarm; a gateway refusing ready shows as GatewayUnavailable. Nothing was charged by the failed page; the customer can reload it.",
      },
    );
  }

  #alarm(
    id: string,
    metric: IMetric,
    options: {
      threshold: number;
      comparison?: ComparisonOperator;
      evaluationPeriods?: number;
      missing?: TreatMissingData;
      runbook: string;
    },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      threshold: options.threshold,
      comparisonOperator: options.comparison ?? ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      treatMissingData: options.missing ?? TreatMissingData.NOT_BREACHING,
      alarmDescription: options.runbook,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }

  #queueAlarms({ queues, scheduleDeadLetters }: BillingMonitoringProps) {
    const depth = (queue: IQueue) =>
      queue.metricApproximateNumberOfMessagesVisible({
        statistic: Stats.MAXIMUM,
        period: Duration.minutes(5),
      });
    const consumerOf: Record<string, string> = {
      ChargeWork: "process-charges",
      IntakeWork: "process-intake",
    };
    for (const [name, queue] of Object.entries(queues)) {
      const consumer = consumerOf[name] ?? "its consumer";
      this.#alarm(`${name}DeadLetters`, depth(queue.deadLetterQueue), {
        threshold: 0,
        runbook: `${name} DLQ not empty: messages failed ${consumer} 8 times. Find the cause in the logs of ${consumer} (messageId), fix it, then redrive the DLQ to its source queue (SQS console: Start DLQ redrive). Redrive is safe: every step is a conditional write or de-duplicated, nothing is charged twice.`,
      });
      this.#alarm(
        `${name}Backlog`,
        queue.queue.metricApproximateAgeOfOldestMessage({
          statistic: Stats.MAXIMUM,
          period: Duration.minutes(5),
        }),
        {
          threshold: QUEUE_MAX_AGE.toSeconds(),
          evaluationPeriods: 2,
          runbook: `${name}: a message has waited over an hour. ${consumer} is failing, throttled or the gateway is unavailable (see its Errors/Throttles alarms and GatewayUnavailable on the dashboard); work resumes by itself once the cause is gone.`,
        },
      );
    }
    this.#alarm("ScheduleDeadLetters", depth(scheduleDeadLetters), {
      threshold: 0,
      runbook:
        "Schedule DLQ not empty: a scheduled run (charge run, attempt sweep, partner token, reconciliation, partner webhook) could not be delivered or failed every retry. The message names the function; read its logs, fix, invoke it once by hand (every scheduled job is safe to run twice), then purge the DLQ.",
    });
  }

  /** Events are written with their state (the outboxes); these say when their delivery lags or fails. */
  #eventDeliveryAlarms({ functions, eventDeadLetters, ruleDeadLetters }: BillingMonitoringProps) {
    this.#alarm(
      "EventRuleDeadLetters",
      ruleDeadLetters.metricApproximateNumberOfMessagesVisible({
        statistic: Stats.MAXIMUM,
        period: Duration.minutes(5),
      }),
      {
        threshold: 0,
        runbook:
          "A billing event failed its bus rule's target (notify-customer: the customer's mail; queue-webhooks: its webhooks' fan-out) for a day of retries. Each message is the event; read the function's logs (its event_id), fix the cause (SES refusing: sender not verified, sending paused, throttled; the table or the webhook queue refusing), then replay the events (npx billing events replay --from … --to …): a mail already sent is never sent again, and webhook consumers de-duplicate on event_id. Purge the queue after.",
      },
    );
    const publisher = functions.find((fn) => fn.handlerName === "publish-events");
    if (publisher !== undefined) {
      this.#alarm(
        "EventDeliveryAge",
        publisher.metric("IteratorAge", { statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
        {
          threshold: EVENT_DELIVERY_MAX_AGE.toMilliseconds(),
          runbook:
            "publish-events is over 5 minutes behind the billing table's stream: the SaaS learns of charges and cancellations late. Read its logs and its Errors alarm (the event bus refusing, throttling). Nothing is lost: every event stays in its item's outbox until delivered, and the outbox sweep delivers what the stream gives up on.",
        },
      );
    }
    this.#alarm(
      "EventDeliveryDeadLetters",
      eventDeadLetters.metricApproximateNumberOfMessagesVisible({
        statistic: Stats.MAXIMUM,
        period: Duration.minutes(5),
      }),
      {
        threshold: 0,
        runbook:
          "A table-stream batch failed publish-events every retry; the message holds its stream position, not the events. The events are still in their outboxes: the outbox sweep delivers them (watch EventsDeliveredBySweep). Fix the cause in the publish-events logs, then purge this queue.",
      },
    );
    this.#alarm(
      "OutboxDeliveriesFailed",
      billingMetric("OutboxDeliveriesFailed", Stats.SUM, Duration.minutes(15)),
      {
        threshold: 0,
        runbook:
          "The outbox sweep could not deliver some outboxes (the event bus refused). They stay pending and every sweep tries again; read the sweep-outbox logs (\"outbox delivery failed\", the outbox's item) and the bus's status. Events are never dropped.",
      },
    );
  }

  #functionAlarms(functions: readonly BillingFunction[]) {
    const fiveMinutes = { statistic: Stats.SUM, period: Duration.minutes(5) };
    for (const fn of functions) {
      const name = fn.handlerName;
      this.#alarm(`${fn.node.id}Errors`, fn.metricErrors(fiveMinutes), {
        threshold: 0,
        runbook: `${name} failed. Read its log group ("invocation failed"): a missing variable or an unset secret names itself. Queued and scheduled work is retried by itself; an API caller got a 5xx and may retry with the same Idempotency-Key.`,
      });
      this.#alarm(`${fn.node.id}Throttles`, fn.metricThrottles(fiveMinutes), {
        threshold: 0,
        runbook: `${name} was throttled: its concurrency limit (functions/function-table.ts) or the account's is exhausted. Queued work waits, scheduled work is retried; raise the limit only as far as the gateway's rate limits allow.`,
      });
    }
  }

  #chargeAlarms(config: BillingConfig) {
    const hour = Duration.hours(1);
    const declineRate = new MathExpression({
      expression: `IF(succeeded + declined >= ${DECLINE_RATE_MIN_CHARGES}, 100 * declined / (succeeded + declined), 0)`,
      usingMetrics: {
        succeeded: billingMetric("ChargeSucceeded", Stats.SUM, hour),
        declined: billingMetric("ChargeDeclined", Stats.SUM, hour),
      },
      label: "Decline rate (%)",
      period: hour,
    });
    this.#alarm("DeclineRate", declineRate, {
      threshold: config.declineRateAlarmPercent,
      runbook: `Over ${config.declineRateAlarmPercent}% of charges declined in the last hour (at least ${DECLINE_RATE_MIN_CHARGES} charges). Read the decline codes in process-charges' logs: one code across many cards points at the gateway or acquirer (contact the gateway); dunning goes on by itself.`,
    });
    this.#alarm("UnknownOutcomes", billingMetric("ChargeUnknown", Stats.SUM, hour), {
      threshold: UNKNOWN_OUTCOMES_PER_HOUR,
      comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      runbook: `${UNKNOWN_OUTCOMES_PER_HOUR}+ REBILLs in an hour got no usable answer (timeout or reset after sending). Never charge these again by hand: the attempt sweep settles each by retrieve on its order_id after the in-flight window. Check the gateway's status and latency.`,
    });
    this.#alarm("UnresolvedAttempts", billingMetric("AttemptsDeferred", Stats.SUM, hour), {
      threshold: 0,
      evaluationPeriods: 2,
      runbook:
        "For two hours the attempt sweep could not settle open charge attempts (retrieve unavailable): some outcomes have been unknown for over an hour. Check sweep-attempts' logs (order_id) and the gateway's status; never charge these subscriptions by hand, they settle once retrieve answers.",
    });
    this.#alarm("UnresolvedRefunds", billingMetric("RefundsDeferred", Stats.SUM, hour), {
      threshold: 0,
      evaluationPeriods: 2,
      runbook:
        "For two hours the attempt sweep could not settle open refunds (retrieve by refund_id unavailable, or the refund's cancel still without an answer). Check sweep-attempts' logs (refund_id) and the gateway's status; never refund these charges by hand: each refund holds its amount on its charge and settles, or is sent again under the same refund_id, once the gateway answers.",
    });
    this.#alarm("SweepItemsFailing", billingMetric("SweepItemsFailed", Stats.SUM, Duration.minutes(5)), {
      threshold: 0,
      evaluationPeriods: 3,
      runbook:
        "For three sweeps in a row the attempt sweep could not settle some open attempts or refunds: settling them threw. The others are settled regardless. sweep-attempts logs one 'sweep item failed' line per item (order_id or refund_id, and the error); `billing open list` shows them. Fix the cause; the next sweep takes them again. Never charge or refund them by hand.",
    });
    this.#alarm("SweepItemsOverdue", billingMetric("SweepItemsOverdue", Stats.MAXIMUM, hour), {
      threshold: 0,
      runbook:
        "Charge attempts or refunds have been open for over a day: their outcome is still unknown to us. sweep-attempts logs their ids ('open past a day'); `billing open list --overdue` shows each with its age and state. Look each up at the gateway (retrieve by order_id or refund_id) before anything else; never charge or refund them again by hand: the sweep settles each once the gateway answers.",
    });
    return declineRate;
  }

  #operationsAlarms() {
    this.#alarm(
      "ReconciliationMismatches",
      billingMetric("ReconciliationMismatches", Stats.MAXIMUM, Duration.days(1)),
      {
        threshold: 0,
        runbook:
          'Reconciliation found differences between the ledger and the gateway. reconcile-ledger logs one "reconciliation mismatch" line each (transactions: ids, amounts) and one "settlement mismatch" line each (payouts: a movement unknown here or of another amount, fees that do not add up, a remittance whose total does not, a line paid twice or never paid out): check each against the gateway\'s transaction and settlement reports before correcting anything; re-run a period by invoking it with {"from":"YYYYMMDD","to":"YYYYMMDD"} (npx billing reconcile).',
      },
    );
    this.#alarm(
      "PartnerTokenExpiring",
      billingMetric("PartnerTokenHoursLeft", Stats.MINIMUM, Duration.hours(6)),
      {
        threshold: PARTNER_TOKEN_MIN_HOURS,
        comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
        missing: TreatMissingData.MISSING,
        runbook:
          "The partner JWT has under 2 h left: refresh-partner-token is failing. Read its logs (partner API key in the GatewayCredentials secret, partner API status); once fixed, invoke it by hand.",
      },
    );
    this.#alarm(
      "WebhookSignatureFailures",
      billingMetric("GatewayWebhooksRejected", Stats.SUM, Duration.minutes(5)),
      {
        threshold: WEBHOOK_REJECTIONS_PER_5_MIN,
        comparison: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        runbook: `${WEBHOOK_REJECTIONS_PER_5_MIN}+ gateway webhooks refused in 5 minutes (bad signature or stale transmission time). Either the gateway's webhook secret changed (put it under "next" in the WebhookSecrets secret, later move it to "current") or someone is forging deliveries; the gateway re-sends genuine ones hourly, up to 3 times.`,
      },
    );
    this.#alarm(
      "ChargebacksUnmatched",
      billingMetric("ChargebacksUnmatched", Stats.SUM, Duration.minutes(5)),
      {
        threshold: 0,
        runbook:
          "A chargeback arrived for a transaction the ledger does not know. Find it in process-intake's logs (transaction_id), look it up in the gateway's portal and record the dispute with the customer by hand.",
      },
    );
    this.#alarm(
      "StatusCallbacksRejected",
      billingMetric("StatusCallbacksRejected", Stats.SUM, Duration.minutes(5)),
      {
        threshold: 0,
        runbook:
          "A status_url callback failed verify with the gateway (changed parameters or a forged call); nothing was changed. Check process-intake's logs (order_id); repeated ones from one source suggest tampering.",
      },
    );
  }

  #dashboard(props: BillingMonitoringProps, declineRate: MathExpression) {
    const hour = Duration.hours(1);
    const charges: ChargeMetric[] = [
      "ChargeSucceeded",
      "ChargeDeclined",
      "ChargeUnknown",
      "ChargeRejected",
      "GatewayUnavailable",
    ];
    const queues = Object.entries(props.queues);
    const depth = (queue: IQueue, label: string) =>
      queue.metricApproximateNumberOfMessagesVisible({
        statistic: Stats.MAXIMUM,
        period: Duration.minutes(5),
        label,
      });
    const dashboard = new Dashboard(this, "Dashboard", { defaultInterval: Duration.days(7) });
    dashboard.addWidgets(
      new GraphWidget({
        title: "Charges per hour",
        width: 16,
        left: charges.map((name) => billingMetric(name, Stats.SUM, hour).with({ label: name })),
      }),
      new GraphWidget({ title: "Decline rate (%)", width: 8, left: [declineRate] }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: "Queue depths (visible messages)",
        width: 12,
        left: queues.map(([name, queue]) => depth(queue.queue, name)),
        right: [
          ...queues.map(([name, queue]) => depth(queue.deadLetterQueue, `${name} DLQ`)),
          depth(props.scheduleDeadLetters, "Schedule DLQ"),
        ],
      }),
      new GraphWidget({
        title: "Oldest message (s)",
        width: 12,
        left: queues.map(([name, queue]) =>
          queue.queue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, label: name }),
        ),
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: "Duration p95 (ms)",
        width: 12,
        left: props.functions.map((fn) =>
          fn.metricDuration({ statistic: Stats.p(95), label: fn.handlerName }),
        ),
      }),
      new GraphWidget({
        title: "Errors and throttles",
        width: 12,
        left: props.functions.map((fn) => fn.metricErrors({ statistic: Stats.SUM, label: fn.handlerName })),
        right: props.functions.map((fn) =>
          fn.metricThrottles({ statistic: Stats.SUM, label: `${fn.handlerName} throttles` }),
        ),
      }),
    );
    dashboard.addWidgets(
      new SingleValueWidget({
        title: "Partner JWT hours left",
        width: 8,
        metrics: [billingMetric("PartnerTokenHoursLeft", Stats.MINIMUM, Duration.hours(6))],
      }),
      new SingleValueWidget({
        title: "Reconciliation mismatches (last run)",
        width: 8,
        metrics: [billingMetric("ReconciliationMismatches", Stats.MAXIMUM, Duration.days(1))],
      }),
      new GraphWidget({
        title: "Webhooks refused",
        width: 8,
        left: [billingMetric("GatewayWebhooksRejected", Stats.SUM, Duration.minutes(5))],
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: "Our webhooks to the SaaS per hour",
        width: 24,
        left: (["WebhooksDelivered", "WebhookAttemptsFailed", "WebhookDeliveriesFailed"] as const).map(
          (name) => billingMetric(name, Stats.SUM, hour).with({ label: name }),
        ),
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: "MRR by currency (daily, measure-revenue)",
        width: 8,
        left: [revenueSearch("MRR", Stats.MAXIMUM, "MRR")],
      }),
      new GraphWidget({
        title: "Paying subscriptions by currency",
        width: 8,
        left: [revenueSearch("PayingSubscriptions", Stats.MAXIMUM, "Paying")],
      }),
      new GraphWidget({
        title: "MRR movements per day",
        width: 8,
        left: REVENUE_MOVEMENTS.map((name) => revenueSearch(name, Stats.SUM, name)),
      }),
    );
    dashboard.addWidgets(new AlarmStatusWidget({ title: "Alarms", width: 24, alarms: this.alarms }));
  }
}
