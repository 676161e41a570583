import type { SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import type * as z from "zod";
import { Button } from "~/components/ui/button";
import { FormBuilder, type FormField } from "~/components/ui/form";
import { ConfirmedAction } from "~/components/ui/confirmed-action";

/** The frame of both TLS screens (TLS certificate, Client TLS): heading, introduction, sections. */
export function TlsPage({ title, intro, children }: { title: string; intro: string; children: ReactNode }) {
  return (
    <div className="flex max-w-5xl flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-lg font-semibold text-gray-900">{title}</h1>
        <p className="text-sm text-gray-600">{intro}</p>
      </div>
      {children}
    </div>
  );
}

/** A titled section of a TLS screen, named by its heading (`id`). */
export function TlsSection({ id, title, tight = false, children }: { id: string; title: string; tight?: boolean; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className={`flex flex-col ${tight ? "gap-2" : "gap-3"} rounded border border-gray-200 bg-white p-4`}>
      <h2 id={id} className="text-base font-semibold text-gray-900">
        {title}
      </h2>
      {children}
    </section>
  );
}

/**
 * The upload section of either screen (`screen`: its messages `admin.<screen>.upload…` and its
 * heading's id `<screen>-upload`): PEM file fields posted as multipart (with or without JavaScript)
 * with intent "upload"; the action's refusal (`answer`) under the form.
 */
export function TlsUploadSection<Schema extends z.ZodType>({
  screen,
  page,
  schema,
  fields,
  answer,
}: {
  screen: "tls" | "client-tls";
  page: string;
  schema: Schema;
  fields: readonly FormField[];
  answer: object | undefined;
}) {
  const { t } = useTranslation();
  const id = `${screen}-upload`;
  const lastResult = answer && "submission" in answer ? (answer.submission as SubmissionResult<string[]>) : undefined;
  return (
    <TlsSection id={id} title={t(`admin.${screen}.upload`)}>
      <p className="text-sm text-gray-600">{t(`admin.${screen}.upload.rules`)}</p>
      <FormBuilder id={`${id}-form`} schema={schema} as={Form} method="post" action={page} encType="multipart/form-data" lastResult={lastResult} fields={fields}>
        <Button type="submit" name="intent" value="upload">
          {t(`admin.${screen}.upload.submit`)}
        </Button>
      </FormBuilder>
    </TlsSection>
  );
}

/** A file field of a PEM upload. */
export const pemField = (name: string, label: string, accept = ".pem,.crt,.cer,application/x-pem-file"): FormField => ({ name, label, type: "file", accept, required: true });

/** The "Remove" of both screens: a danger action confirmed in a dialog, or on the page without JavaScript (`?confirm=remove`). */
export function TlsRemove({ page, label, message, confirmLabel, asking }: { page: string; label: string; message: string; confirmLabel: string; asking: boolean }) {
  return (
    <div>
      <ConfirmedAction action={page} fields={{ intent: "remove" }} label={label} title={label} message={message} confirmLabel={confirmLabel} danger asking={asking} cancelHref={page} />
    </div>
  );
}
