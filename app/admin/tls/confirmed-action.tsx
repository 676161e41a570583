import { Form, useSubmit } from "@remix-run/react";
import { useState, type FormEvent, type ReactNode } from "react";
import { Button } from "~/components/ui/button";
import { InlineConfirm } from "~/components/ui/inline-confirm";
import { Modal } from "~/components/ui/modal";

/**
 * A button that posts `fields` to `action` after a confirmation: with JavaScript a dialog asks; without
 * it the post comes back to the page with `?confirm=…`, which shows the same question in the page
 * (`asking`) with a button that posts it confirmed.
 */
export function ConfirmedAction({
  action,
  fields,
  label,
  title,
  message,
  confirmLabel,
  danger = false,
  asking,
  cancelHref,
  disabled = false,
}: {
  action: string;
  fields: Record<string, string>;
  label: ReactNode;
  title: ReactNode;
  message: ReactNode;
  confirmLabel: ReactNode;
  danger?: boolean;
  asking: boolean;
  cancelHref: string;
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const submit = useSubmit();
  const ask = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setOpen(true);
  };
  return (
    <>
      <Form method="post" action={action} onSubmit={ask} className="inline-flex">
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <Button type="submit" variant="outlined" danger={danger} disabled={disabled}>
          {label}
        </Button>
      </Form>
      {asking && <InlineConfirm message={message} action={action} fields={{ ...fields, confirmed: "1" }} cancelHref={cancelHref} confirmLabel={confirmLabel} />}
      <Modal
        open={open}
        danger={danger}
        title={title}
        confirmLabel={confirmLabel}
        onClose={() => setOpen(false)}
        onConfirm={() => {
          submit({ ...fields, confirmed: "1" }, { method: "post", action });
        }}
      >
        <p>{message}</p>
      </Modal>
    </>
  );
}
