/**
 * Counts are pluralised with i18next plurals (`key_one`, `key_other`, called as `t("key", { count })`).
 * Chinese has a single plural form, so a Chinese table has the `_other` key only.
 */
export type ZhMessages<En> = Record<Exclude<keyof En, `${string}_one`>, string>;

/** The key a plural key is called by (`"a_one"`, `"a_other"` → `"a"`). */
export const pluralBase = (key: string) => key.replace(/_(zero|one|two|few|many|other)$/, "");
