// dynalite ships no types and has no @types package; only what local mode and the tests use.
declare module "dynalite" {
  import type { Server } from "node:http";

  interface DynaliteOptions {
    /** How long a table stays CREATING / DELETING / UPDATING (default 500 ms). */
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    /** LevelDB directory; in memory when absent. */
    path?: string;
  }

  export default function dynalite(options?: DynaliteOptions): Server;
}
