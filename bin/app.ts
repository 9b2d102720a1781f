import { App } from "aws-cdk-lib";
import { addBillingStacks, enforceAwsSolutions } from "../lib/billing-app";

// `npx cdk deploy` (the merchant's account) and `npm run synth` (offline). Settings: the `billing:` context keys
// (lib/config.ts).
const app = new App();
addBillingStacks(app);
enforceAwsSolutions(app);
app.synth();
