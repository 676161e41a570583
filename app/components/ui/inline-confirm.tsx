import { useId, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Button, ButtonLink } from "./button";

/**
 * A confirmation that is part of the page, for where the dialog needs JavaScript (a Delete posted
 * without it comes back here first): the question, a POST form carrying `fields` as hidden inputs
 * with a red Delete button, and Cancel as a link back to `cancelHref`.
 */
export function InlineConfirm({
  message,
  action,
  fields,
  cancelHref,
  confirmLabel,
}: {
  message: ReactNode;
  action: string;
  fields: Record<string, string | number>;
  cancelHref: string;
  confirmLabel?: ReactNode;
}) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div role="alertdialog" aria-labelledby={id} className="flex flex-wrap items-center gap-3 rounded border border-red-200 bg-red-50 p-3 text-sm">
      <p id={id}>{message}</p>
      <form method="post" action={action}>
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <Button type="submit" danger size="small">
          {confirmLabel ?? t("global.confirm.delete")}
        </Button>
      </form>
      <ButtonLink href={cancelHref} variant="outlined" size="small">
        {t("global.cancel")}
      </ButtonLink>
    </div>
  );
}
