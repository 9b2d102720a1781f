#!/usr/bin/env node
// `npx billing …`: the ops CLI (bin/billing-cli.ts), run through tsx so that no build step is needed.
import { register } from "tsx/esm/api";

register();
await import("./billing-cli.ts");
