import type { SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { FormBuilder, type FormField } from "~/components/ui/form";
import { useHydrated } from "~/utils/use-hydrated";
import { AUTH_WAYS, type AuthenticationInfo } from "../../../contract/authentication";
import { wayFormSchema } from "./schema";

const WAYS = Object.values(AUTH_WAYS);

/**
 * The authentication way tab: the way, and for LDAP/AD the server, domain, base, test account and
 * password (with Test: 1056 / 1057), for external HTTP the URL and timeout. Without JavaScript every
 * field is shown; with it, those of the chosen way.
 */
export function WayForm({ settings, lastResult, tested }: { settings: AuthenticationInfo; lastResult?: SubmissionResult<string[]>; tested: boolean }) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const [way, setWay] = useState<number>(settings.way);
  const shows = (w: number) => !hydrated || way === w;
  const fields: FormField[] = [
    { name: "way", label: t("admin.auth.way"), type: "radioGroup", options: WAYS.map((w) => ({ value: String(w), label: t(`admin.auth.way.${w}`) })) },
    ...(shows(AUTH_WAYS.Ldap)
      ? ([
          { name: "ldapServer", label: t("admin.auth.ldap.server"), type: "input", placeholder: "ldap://ldap.example.com:389" },
          { name: "ldapDomain", label: t("admin.auth.ldap.domain"), type: "input", placeholder: "example.com" },
          { name: "ldapBase", label: t("admin.auth.ldap.base"), type: "input", placeholder: "dc=example,dc=com" },
          { name: "ldapTestAccount", label: t("admin.auth.ldap.account"), type: "input", placeholder: "cn=reader,dc=example,dc=com" },
          {
            name: "ldapTestPassword",
            label: t("admin.auth.ldap.password"),
            type: "password",
            placeholder: settings.hasLdapTestPassword ? t("admin.auth.ldap.password.stored") : undefined,
          },
        ] satisfies FormField[])
      : []),
    ...(shows(AUTH_WAYS.Http)
      ? ([
          { name: "httpAuthUrl", label: t("admin.auth.http.url"), type: "input", placeholder: "https://auth.example.com/check" },
          { name: "httpTimeout", label: t("admin.auth.http.timeout"), type: "inputNumber" },
        ] satisfies FormField[])
      : []),
  ];
  const pick = (event: FormEvent<HTMLDivElement>) => {
    const target = event.target as HTMLInputElement;
    if (target.name === "way") setWay(Number(target.value));
  };
  return (
    <div className="flex flex-col gap-4" onChange={pick}>
      <p className="text-sm text-gray-600">{t("admin.auth.way.note")}</p>
      <FormBuilder
        id="authentication-way"
        schema={wayFormSchema}
        fields={fields}
        as={Form}
        method="post"
        action="/admin/authentication"
        lastResult={lastResult}
        defaultValue={{
          way: String(settings.way),
          ldapServer: settings.ldapServer,
          ldapDomain: settings.ldapDomain,
          ldapBase: settings.ldapBase,
          ldapTestAccount: settings.ldapTestAccount,
          httpAuthUrl: settings.httpAuthUrl,
          httpTimeout: String(settings.httpTimeout),
        }}
      >
        <div className="flex items-center gap-2">
          <Button type="submit" name="intent" value="save-way">
            {t("admin.auth.save")}
          </Button>
          {shows(AUTH_WAYS.Ldap) && (
            <Button type="submit" variant="outlined" name="intent" value="test-ldap">
              {t("admin.auth.ldap.test")}
            </Button>
          )}
        </div>
        {tested && (
          <p role="status" className="mt-2 text-sm text-green-700">
            {t("admin.auth.ldap.tested")}
          </p>
        )}
      </FormBuilder>
    </div>
  );
}
