/**
 * Calls a sandbox-only control (README "Sandbox-only routes"): completing a window as the customer would, token
 * changes, where chargebacks go. Throws on anything but a 2xx.
 */
export async function sandboxControl(
  sandboxUrl: string,
  path: string,
  body?: unknown,
  method: "POST" | "PUT" = "POST",
): Promise<void> {
  const response = await fetch(`${sandboxUrl}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`sandbox ${path.split("/")[2]} answered ${response.status}`);
}
