import { Form, useSubmit } from "@remix-run/react";
import { useState, type FormEvent, type ReactNode } from "react";
import { Button, type ButtonSize, type ButtonVariant } from "./button";
import { InlineConfirm } from "./inline-confirm";
import { Modal } from "./modal";

export type ConfirmedActionProps = {
  /** Where the POST goes. */
  action: string;
  /** Posted as hidden inputs; the confirmed post adds `confirmed=1`. */
  fields: Record<string, string>;
  label: ReactNode;
  title: ReactNode;
  message: ReactNode;
  confirmLabel: ReactNode;
  danger?: boolean;
  /**
   * The page was loaded with this action to confirm (the no-JavaScript round trip, `?confirm=…`):
   * the question is shown in the page, next to the button. Leave it out when the page shows the
   * question elsewhere (e.g. above a table whose row holds the button).
   */
  asking?: boolean;
  /** Cancel of the in-page question goes here (required with `asking`). */
  cancelHref?: string;
  disabled?: boolean;
  /** The confirmed post is on its way (the button shows a spinner). */
  loading?: boolean;
  /**
   * With JavaScript, post the confirmed action through the fetcher of this key instead of a
   * navigation: the page follows its state and answer (`useFetcher({ key })`), as the dashboard's
   * restart does while it waits for the engine to come back.
   */
  fetcherKey?: string;
  size?: ButtonSize;
  variant?: ButtonVariant;
  /** The button's accessible name when `label` alone is ambiguous (a Stop in every row). */
  "aria-label"?: string;
};

/**
 * A button that posts `fields` to `action` after a confirmation: with JavaScript the kit's dialog
 * asks; without it the post reaches the action unconfirmed, which answers by coming back to the
 * page with `?confirm=…`, and the page shows the same question (`asking`) with a button that posts
 * it confirmed. Either way the action acts only on `confirmed=1`.
 */
export function ConfirmedAction({
  action,
  fields,
  label,
  title,
  message,
  confirmLabel,
  danger = false,
  asking = false,
  cancelHref,
  disabled = false,
  loading = false,
  fetcherKey,
  size,
  variant = "outlined",
  "aria-label": ariaLabel,
}: ConfirmedActionProps) {
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
        <Button type="submit" size={size} variant={variant} danger={danger} disabled={disabled} loading={loading} aria-label={ariaLabel}>
          {label}
        </Button>
      </Form>
      {asking && cancelHref !== undefined && (
        <InlineConfirm message={message} action={action} fields={{ ...fields, confirmed: "1" }} cancelHref={cancelHref} confirmLabel={confirmLabel} />
      )}
      <Modal
        open={open}
        danger={danger}
        title={title}
        confirmLabel={confirmLabel}
        onClose={() => setOpen(false)}
        onConfirm={() => {
          submit({ ...fields, confirmed: "1" }, fetcherKey === undefined ? { method: "post", action } : { method: "post", action, navigate: false, fetcherKey });
        }}
      >
        <p>{message}</p>
      </Modal>
    </>
  );
}
