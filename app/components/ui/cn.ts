export type ClassValue = string | number | false | null | undefined | Record<string, unknown> | ClassValue[];

/**
 * Joins class names, skipping empty values: `cn("a", ok && "b", { c: on }, ["d"])`. No merging of
 * conflicting Tailwind classes: components put overridable classes last and callers' classes after.
 */
export function cn(...values: ClassValue[]): string {
  const out: string[] = [];
  for (const value of values) {
    if (!value && value !== 0) continue;
    if (typeof value === "string" || typeof value === "number") out.push(String(value));
    else if (Array.isArray(value)) {
      const nested = cn(...value);
      if (nested) out.push(nested);
    } else for (const [name, on] of Object.entries(value)) if (on) out.push(name);
  }
  return out.join(" ");
}
