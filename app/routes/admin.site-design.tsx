import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { LicenceSection } from "~/admin/site-design/licence-section";
import { DESIGN_API, LICENCE_API, siteDesignAction } from "~/admin/site-design/actions.server";
import { placementFields } from "~/admin/site-design/position-grid";
import { SignInPreview } from "~/admin/site-design/preview";
import { confirmSchema, designSchema, PAGE, SITE_FORM_LIMIT, uploadSchemas } from "~/admin/site-design/schema";
import { ConfirmedAction } from "~/components/ui/confirmed-action";
import { Button } from "~/components/ui/button";
import { FormBuilder } from "~/components/ui/form";
import { readForm } from "~/utils/form.server";
import { requireAdmin } from "~/utils/session.server";
import type { LicenceState } from "../../contract/licence";
import { SITE_ASSET_RULES, SITE_ASSETS, type SiteAsset, type SiteDesign, type SiteDesignFields } from "../../contract/site-design";

/** Site design and the licence (admin document, sections 1, 3 "Site design" and "License", 5): docs/admin-api.md. */
export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  const [design, licence] = await Promise.all([admin.call<SiteDesign>(DESIGN_API), admin.call<LicenceState>(LICENCE_API)]);
  if (!design.result || !design.data || !licence.result || !licence.data) throw new Response(design.message, { status: 502 });
  const confirm = confirmSchema.parse(new URL(request.url).searchParams.get("confirm"));
  return data({ design: design.data, licence: licence.data, confirm }, { headers: { "Set-Cookie": await admin.commit() } });
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readForm(request, { limit: SITE_FORM_LIMIT });
  const admin = await requireAdmin(request);
  return siteDesignAction(request, admin, form, { headers: { "Set-Cookie": await admin.commit() } });
}

type Answer = { form: string; submission: Parameters<typeof FormBuilder>[0]["lastResult"] } | undefined;

const readDraft = (form: HTMLFormElement, before: SiteDesignFields): SiteDesignFields => {
  const values = new FormData(form);
  const text = (name: keyof SiteDesignFields) => String(values.get(name) ?? before[name]);
  const hex = (name: "primaryColor" | "backgroundColor") => (/^#[0-9a-f]{6}$/i.test(text(name)) ? text(name) : before[name]);
  const number = (name: "position" | "opacity", min: number, max: number) => {
    const n = Number(text(name));
    return Number.isInteger(n) && n >= min && n <= max ? n : before[name];
  };
  return {
    primaryColor: hex("primaryColor"),
    backgroundColor: hex("backgroundColor"),
    position: number("position", 1, 9),
    opacity: number("opacity", 30, 100),
    productNameZH: text("productNameZH").trim() || before.productNameZH,
    productNameEN: text("productNameEN").trim() || before.productNameEN,
    companyLink: text("companyLink"),
    companyLinkEN: text("companyLinkEN"),
  };
};

export default function SiteDesignPage() {
  const { design, licence, confirm } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as Answer;
  const { t } = useTranslation();
  const [draft, setDraft] = useState(design.fields);
  const [shown, setShown] = useState(design.fields);
  if (shown !== design.fields) {
    // A saved change or a reset came back from the engine: the preview starts from it again.
    setShown(design.fields);
    setDraft(design.fields);
  }
  const locked = !design.allowed;
  const onInput = (event: FormEvent<HTMLDivElement>) => {
    const form = (event.target as HTMLElement).closest("form");
    if (form) setDraft((before) => readDraft(form, before));
  };
  const result = (name: string) => (answer?.form === name ? answer.submission : undefined);
  const asset = (kind: SiteAsset) => design.assets[kind];
  const scene = {
    ...draft,
    raysyncZH: draft.productNameZH,
    raysyncEN: draft.productNameEN,
    is_logo_change: asset("logo") ? 1 : 0,
    logo: asset("logo")?.url ?? "",
    is_bg_change: asset("background") ? 1 : 0,
    background: asset("background")?.url ?? "",
  };
  const colour = (name: "primaryColor" | "backgroundColor") => ({
    name,
    label: t(`admin.site.${name}`),
    type: "custom" as const,
    disabled: locked,
    render: ({ id, name: field }: { id: string; name: string }) => (
      <span className="flex items-center gap-2">
        <input id={id} type="color" name={field} defaultValue={design.fields[name].toLowerCase()} disabled={locked} className="h-8 w-14 cursor-pointer rounded border border-gray-300 bg-white p-0.5 disabled:cursor-not-allowed" />
        <span className="font-mono text-sm text-gray-700">{draft[name].toUpperCase()}</span>
      </span>
    ),
  });

  return (
    <div className="flex max-w-6xl flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-lg font-semibold text-gray-900">{t("admin.site.title")}</h1>
        <p className="text-sm text-gray-600">{t("admin.site.intro")}</p>
      </div>

      {locked && (
        <p role="status" className="rounded border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          {t("admin.site.locked", { edition: t(`dashboard.license.edition.${design.edition}`) })}{" "}
          <a href="#licence" className="font-medium underline">
            {t("admin.site.locked.action")}
          </a>
        </p>
      )}

      <section aria-labelledby="site-branding" className="grid grid-cols-[minmax(0,1fr)_auto] items-start gap-8 rounded border border-gray-200 bg-white p-4">
        <div className="flex min-w-0 flex-col gap-3" onInput={onInput} onChange={onInput}>
          <h2 id="site-branding" className="text-base font-semibold text-gray-900">
            {t("admin.site.branding")}
          </h2>
          <FormBuilder
            id="site-design-form"
            schema={designSchema}
            as={Form}
            method="post"
            action={PAGE}
            layout="vertical"
            defaultValue={{ ...design.fields, position: String(design.fields.position), opacity: String(design.fields.opacity) }}
            lastResult={result("save")}
            fields={[
              colour("primaryColor"),
              colour("backgroundColor"),
              ...placementFields({
                locked,
                position: { name: "position", label: t("admin.site.position"), value: draft.position, onChange: (position) => setDraft((d) => ({ ...d, position })) },
                opacity: { name: "opacity", label: t("admin.site.opacity"), min: 30, value: draft.opacity, initial: design.fields.opacity },
              }),
              { name: "productNameZH", label: t("admin.site.productNameZH"), type: "input", required: true, disabled: locked },
              { name: "productNameEN", label: t("admin.site.productNameEN"), type: "input", required: true, disabled: locked },
              { name: "companyLink", label: t("admin.site.companyLink"), type: "input", placeholder: "https://", disabled: locked, description: t("admin.site.link.help") },
              { name: "companyLinkEN", label: t("admin.site.companyLinkEN"), type: "input", placeholder: "https://", disabled: locked },
            ]}
          >
            <div className="flex gap-3">
              <Button type="submit" name="intent" value="save" disabled={locked}>
                {t("admin.site.save")}
              </Button>
            </div>
          </FormBuilder>
        </div>
        <SignInPreview site={scene} primaryColor={draft.primaryColor} />
      </section>

      <section aria-labelledby="site-images" className="flex flex-col gap-3 rounded border border-gray-200 bg-white p-4">
        <h2 id="site-images" className="text-base font-semibold text-gray-900">
          {t("admin.site.images")}
        </h2>
        <div className="grid grid-cols-2 gap-4">
          {SITE_ASSETS.map((kind) => {
            const stored = asset(kind);
            const rule = SITE_ASSET_RULES[kind];
            return (
              <section key={kind} aria-labelledby={`site-${kind}`} className="flex flex-col gap-2 rounded border border-gray-200 p-3">
                <h3 id={`site-${kind}`} className="text-sm font-semibold text-gray-900">
                  {t(`admin.site.${kind}`)}
                </h3>
                {kind === "watermark" && (
                  <p className="text-xs text-gray-600">
                    {t("admin.site.watermark.help")}{" "}
                    <a href="/admin/settings/general" className="font-medium text-gray-900 underline">
                      {t("admin.site.watermark.settings")}
                    </a>
                  </p>
                )}
                <p className="text-xs text-gray-600">{t("admin.site.image.rules", { types: rule.types.map((x) => x.toUpperCase()).join(", "), width: rule.maxWidth, height: rule.maxHeight, size: `${Math.round(rule.maxBytes / 1024)} KB` })}</p>
                <div className="flex h-24 items-center justify-center rounded bg-gray-50">
                  {stored ? <img src={stored.url} alt={t(`admin.site.${kind}.current`)} className="max-h-20 max-w-full" /> : <span className="text-sm text-gray-600">{t("admin.site.image.default")}</span>}
                </div>
                <FormBuilder
                  id={`upload-${kind}-form`}
                  schema={uploadSchemas[kind]}
                  as={Form}
                  method="post"
                  action={PAGE}
                  encType="multipart/form-data"
                  layout="vertical"
                  lastResult={result(`upload-${kind}`)}
                  fields={[{ name: "image", label: t(`admin.site.${kind}.file`), type: "file", accept: rule.types.map((x) => `.${x === "jpg" ? "jpg,.jpeg" : x}`).join(","), required: true, disabled: locked }]}
                >
                  <input type="hidden" name="asset" value={kind} />
                  <div className="flex flex-wrap gap-2">
                    <Button type="submit" name="intent" value="upload" disabled={locked}>
                      {t(`admin.site.${kind}.upload`)}
                    </Button>
                  </div>
                </FormBuilder>
                {stored && (
                  <ConfirmedAction
                    action={PAGE}
                    fields={{ intent: "remove", asset: kind }}
                    label={t(`admin.site.${kind}.remove`)}
                    title={t(`admin.site.${kind}.remove`)}
                    message={t(kind === "watermark" ? "admin.site.watermark.remove.confirm" : "admin.site.image.remove.confirm")}
                    confirmLabel={t("admin.site.image.remove.confirm-label")}
                    danger
                    disabled={locked}
                    asking={confirm === `remove-${kind}` && !locked}
                    cancelHref={PAGE}
                  />
                )}
              </section>
            );
          })}
        </div>
      </section>

      <section aria-labelledby="site-reset" className="flex flex-col items-start gap-2 rounded border border-gray-200 bg-white p-4">
        <h2 id="site-reset" className="text-base font-semibold text-gray-900">
          {t("admin.site.reset")}
        </h2>
        <p className="text-sm text-gray-600">{t("admin.site.reset.help")}</p>
        <ConfirmedAction
          action={PAGE}
          fields={{ intent: "reset" }}
          label={t("admin.site.reset.button")}
          title={t("admin.site.reset")}
          message={t("admin.site.reset.confirm")}
          confirmLabel={t("admin.site.reset.confirm-label")}
          danger
          disabled={locked}
          asking={confirm === "reset" && !locked}
          cancelHref={PAGE}
        />
      </section>

      <LicenceSection licence={licence} lastResult={result("licence")} asking={confirm === "licence-remove"} />
    </div>
  );
}
