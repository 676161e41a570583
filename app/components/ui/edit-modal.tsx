import { useEffect, useId, useState, type ReactNode } from "react";
import { Modal } from "./modal";

/** Spec, admin document section 4: the inline edit modal takes at most 256 characters. */
export const EDIT_MODAL_MAX_LENGTH = 256;

export type EditModalResult = { ok: boolean };

export type EditModalProps = {
  open: boolean;
  onClose: () => void;
  /** The field's label, also its accessible name. */
  label: string;
  value: string;
  /** Runs only when the (trimmed) text differs from `value`; the modal closes only when it reports ok. */
  onSave: (text: string) => EditModalResult | Promise<EditModalResult>;
  title?: ReactNode;
  afterClose?: () => void;
};

/** A modal with one text field, e.g. a table cell's "edit-modal" column or a rename. */
export function EditModal({ open, onClose, label, value, onSave, title, afterClose }: EditModalProps) {
  const inputId = useId();
  const [text, setText] = useState(value);

  // Every opening starts from the current value, not from an abandoned edit.
  useEffect(() => {
    if (open) setText(value);
  }, [open, value]);

  const trimmed = text.trim();

  async function save() {
    if (trimmed === value) return true;
    const result = await onSave(trimmed);
    return result.ok;
  }

  return (
    <Modal open={open} onClose={onClose} afterClose={afterClose} title={title} onConfirm={save} confirmDisabled={trimmed === ""}>
      <label htmlFor={inputId} className="mb-1 block text-sm text-gray-700">
        {label}
      </label>
      <input
        id={inputId}
        type="text"
        value={text}
        maxLength={EDIT_MODAL_MAX_LENGTH}
        // maxLength only stops typing; pasted or scripted text is cut to the limit as well.
        onChange={(event) => setText(event.target.value.slice(0, EDIT_MODAL_MAX_LENGTH))}
        className="h-8 w-full rounded border border-gray-300 px-3 text-sm outline-none focus:border-primary"
      />
    </Modal>
  );
}
