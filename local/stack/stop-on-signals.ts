/** Ctrl-C (SIGINT) or SIGTERM runs `close` once; a failed close is reported and sets a failing exit code. */
export function stopOnSignals(name: string, close: () => Promise<void>): void {
  const stop = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    close().catch((error: unknown) => {
      console.error(`${name} did not close cleanly:`, error);
      process.exitCode = 1;
    });
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
