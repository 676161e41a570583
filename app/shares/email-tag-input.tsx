import { useState, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import { CloseIcon } from "../components/ui/icons";
import { addEmailTag, tagLabel } from "./rules";

export interface EmailTagInputProps {
  id: string;
  /** The hidden input's name: the `;`-joined addresses (with whatever is still typed) are submitted under it. */
  name: string;
  errorId?: string;
  invalid?: boolean;
  placeholder?: string;
}

/**
 * The e-mail tag input (spec section 5): Enter, `;`, `,` or leaving the field turns the typed text
 * into a tag when it is an address ('Incorrect email format' otherwise); duplicates are ignored;
 * tags show at most 30 characters. What is still typed is submitted too, so nothing is lost.
 */
export function EmailTagInput({ id, name, errorId, invalid = false, placeholder }: EmailTagInputProps) {
  const { t } = useTranslation();
  const [tags, setTags] = useState<string[]>([]);
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const problemId = `${id}-format`;

  const commit = () => {
    const next = addEmailTag(tags, text);
    setProblem(next.problem);
    if (next.problem) return false;
    setTags(next.tags);
    setText("");
    return true;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Enter" || event.key === ";" || event.key === ",") {
      // Enter would submit the dialog's form: it makes a tag instead.
      event.preventDefault();
      commit();
    } else if (event.key === "Backspace" && text === "" && tags.length > 0) {
      setTags(tags.slice(0, -1));
    }
  };
  const describedBy = [problem ? problemId : null, invalid ? errorId : null].filter(Boolean).join(" ") || undefined;
  const border = invalid || problem ? "border-red-600 focus-within:ring-red-600" : "border-gray-300 focus-within:border-primary focus-within:ring-primary";

  return (
    <div className="flex flex-col gap-1">
      <input type="hidden" name={name} value={[...tags, text.trim()].filter(Boolean).join(";")} />
      <div className={`flex min-h-8 flex-wrap items-center gap-1 rounded border bg-white px-1.5 py-1 focus-within:ring-1 ${border}`}>
        <ul className="contents" aria-label={t("share.email.recipients")}>
          {tags.map((address) => (
            <li key={address} title={address} className="inline-flex max-w-full items-center gap-1 rounded bg-gray-100 px-2 py-0.5 text-xs text-gray-800">
              <span className="truncate">{tagLabel(address)}</span>
              <button
                type="button"
                aria-label={t("share.email.remove", { address })}
                className="rounded text-gray-500 hover:text-gray-900"
                onClick={() => setTags(tags.filter((a) => a !== address))}
              >
                <CloseIcon size={12} />
              </button>
            </li>
          ))}
        </ul>
        <input
          id={id}
          type="text"
          inputMode="email"
          autoComplete="email"
          value={text}
          placeholder={tags.length === 0 ? placeholder : undefined}
          aria-invalid={invalid || problem !== null || undefined}
          aria-describedby={describedBy}
          onChange={(event) => {
            setText(event.target.value);
            if (problem) setProblem(null);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => {
            if (text.trim() !== "") commit();
          }}
          className="h-6 min-w-40 flex-1 border-0 bg-transparent px-1 text-sm text-gray-900 placeholder:text-gray-400 focus:outline-none"
        />
      </div>
      {problem && (
        <p id={problemId} role="alert" className="text-xs text-red-600">
          {t(problem)}
        </p>
      )}
    </div>
  );
}
