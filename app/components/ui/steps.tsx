import { useEffect, useId, useRef, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "./button";
import { cn } from "./cn";

export interface Step {
  key: string;
  title: string;
  content: ReactNode;
}

export type StepsProps = {
  steps: readonly Step[];
  /** The step shown, from 0. */
  current: number;
  /** Accessible name of the step list ("Add user: steps"). */
  label: string;
  /**
   * The name of the navigation buttons: each is a submit button of the surrounding form with
   * value "back", "next", "skip" or "finish", so a form steps through its pages as plain HTML (the
   * action answers with the step to show). Default "step".
   */
  name?: string;
  /** Label of the last step's Next ("Save", "Create"); global.steps.finish when left out. */
  finishLabel?: string;
  /** Offer Skip (from the second step on): finish now, the remaining steps keeping their values. */
  skippable?: boolean;
  /** True while a navigation is being answered: the buttons wait. */
  busy?: boolean;
  className?: string;
};

/**
 * The kit's step form (spec: 4 steps with Back, Next and Skip). It renders every step's content
 * inside the surrounding <form>, only the current one visible, so each post carries all values;
 * the buttons are the form's submit buttons. The first submit button in the form is an invisible
 * Next, so Enter in a field goes forward rather than back. When the step changes, focus moves to
 * the new step's heading so a keyboard or screen-reader user starts there.
 */
export function Steps({ steps, current, label, name = "step", finishLabel, skippable = false, busy = false, className }: StepsProps) {
  const { t } = useTranslation();
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const shown = useRef(current);
  const last = current >= steps.length - 1;
  useEffect(() => {
    if (shown.current === current) return;
    shown.current = current;
    heading.current?.focus();
  }, [current]);
  return (
    <div className={cn("flex flex-col gap-6", className)}>
      <button type="submit" name={name} value={last ? "finish" : "next"} hidden tabIndex={-1} aria-hidden="true" />
      <ol aria-label={label} className="flex items-center gap-2">
        {steps.map((step, index) => {
          const state = index < current ? "done" : index === current ? "current" : "todo";
          return (
            <li key={step.key} aria-current={state === "current" ? "step" : undefined} className="flex flex-1 items-center gap-2">
              <span
                aria-hidden="true"
                className={cn(
                  "inline-flex size-7 shrink-0 items-center justify-center rounded-full border text-sm font-medium",
                  state === "current" && "border-primary bg-primary text-white",
                  state === "done" && "border-primary text-primary",
                  state === "todo" && "border-gray-300 text-gray-600",
                )}
              >
                {state === "done" ? "✓" : index + 1}
              </span>
              <span className={cn("whitespace-nowrap text-sm", state === "current" ? "font-semibold text-gray-900" : "text-gray-700")}>
                <span className="sr-only">{t("global.steps.position", { current: index + 1, total: steps.length })} </span>
                {step.title}
                {state === "done" && <span className="sr-only"> ({t("global.steps.done")})</span>}
              </span>
              {index < steps.length - 1 && <span aria-hidden="true" className={cn("h-px flex-1", index < current ? "bg-primary" : "bg-gray-300")} />}
            </li>
          );
        })}
      </ol>
      {steps.map((step, index) => (
        <section key={step.key} hidden={index !== current} aria-labelledby={`${id}-${step.key}`} className={cn("flex-col gap-4", index === current ? "flex" : "hidden")}>
          <h2 id={`${id}-${step.key}`} ref={index === current ? heading : undefined} tabIndex={-1} className="text-base font-semibold focus:outline-none">
            {step.title}
          </h2>
          {step.content}
        </section>
      ))}
      <div className="flex items-center justify-end gap-2 border-t border-gray-200 pt-4">
        {current > 0 && (
          <Button type="submit" name={name} value="back" variant="outlined" formNoValidate disabled={busy}>
            {t("global.steps.back")}
          </Button>
        )}
        {skippable && current > 0 && !last && (
          <Button type="submit" name={name} value="skip" variant="outlined" disabled={busy}>
            {t("global.steps.skip")}
          </Button>
        )}
        <Button type="submit" name={name} value={last ? "finish" : "next"} disabled={busy}>
          {last ? (finishLabel ?? t("global.steps.finish")) : t("global.steps.next")}
        </Button>
      </div>
    </div>
  );
}

export type StepMove = "back" | "next" | "skip" | "finish";
const MOVES: readonly string[] = ["back", "next", "skip", "finish"];

/** Reads the pressed step button of a posted form (for the action); a post without one counts as Next. */
export function readStepMove(form: FormData, name = "step"): StepMove {
  const value = form.get(name);
  return typeof value === "string" && MOVES.includes(value) ? (value as StepMove) : "next";
}
