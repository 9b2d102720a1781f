/**
 * Exact arithmetic on the gateway's decimal amount strings ("100", "10.50"): scaled bigints, never floats, so a
 * balance is never off by a rounding error. Results keep the larger number of decimals of the operands.
 */
interface Scaled {
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

function parse(value: string): Scaled {
  const match = DECIMAL.exec(value);
  if (!match) throw new RangeError("not a decimal amount");
  const [, sign, whole = "0", fraction = ""] = match;
  const units = BigInt(`${whole}${fraction}`);
  return { units: sign === "-" ? -units : units, scale: fraction.length };
}

function align(a: string, b: string): [bigint, bigint, number] {
  const [x, y] = [parse(a), parse(b)];
  const scale = Math.max(x.scale, y.scale);
  return [x.units * 10n ** BigInt(scale - x.scale), y.units * 10n ** BigInt(scale - y.scale), scale];
}

function format(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

export function isDecimal(value: string): boolean {
  return DECIMAL.test(value);
}

export function compareAmounts(a: string, b: string): -1 | 0 | 1 {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addAmounts(a: string, b: string): string {
  const [x, y, scale] = align(a, b);
  return format(x + y, scale);
}

export function subtractAmounts(a: string, b: string): string {
  const [x, y, scale] = align(a, b);
  return format(x - y, scale);
}

/** a × b, exact, then rounded half away from zero to `decimals` places (fees, VAT). */
export function multiplyAmounts(a: string, b: string, decimals: number): string {
  const [x, y] = [parse(a), parse(b)];
  const product = x.units * y.units;
  const scale = x.scale + y.scale;
  if (decimals >= scale) return format(product * 10n ** BigInt(decimals - scale), decimals);
  const divisor = 10n ** BigInt(scale - decimals);
  const magnitude = ((product < 0n ? -product : product) + divisor / 2n) / divisor;
  return format(product < 0n ? -magnitude : magnitude, decimals);
}

export function isZeroAmount(value: string): boolean {
  return parse(value).units === 0n;
}
