import { useTranslation } from "react-i18next";
import { Facts } from "~/components/ui/facts";
import { OutputBlock } from "~/components/ui/output-block";
import type { EventRun } from "../../../contract/events";

/** A run's outcome in words: exit code, the signal that stopped it, timed out, or did not run. */
export function useRunResult() {
  const { t } = useTranslation();
  return (run: EventRun) => {
    const parts: string[] = [];
    if (run.timedOut) parts.push(t("admin.events.run.timeout"));
    if (run.exitCode !== null) parts.push(t("admin.events.run.exit", { code: run.exitCode }));
    else if (run.signal) parts.push(t("admin.events.run.signal", { signal: run.signal }));
    if (parts.length === 0) parts.push(t("admin.events.run.not-run"));
    return parts.join(" · ");
  };
}

/** What fired a run: its type's name, or "Test run". */
export function useTriggerName() {
  const { t, i18n } = useTranslation();
  return (trigger: string) => (trigger === "test" ? t("admin.events.run.trigger.test") : i18n.exists(`admin.events.type.${trigger}`) ? t(`admin.events.type.${trigger}`) : trigger);
}

/** One run in full: its facts, then its standard output and error as captured (bounded by the engine). */
export function RunDetails({ run }: { run: EventRun }) {
  const { t, i18n } = useTranslation();
  const result = useRunResult();
  const trigger = useTriggerName();
  return (
    <div className="flex flex-col gap-3 text-sm">
      <Facts
        rows={[
          [t("admin.events.run.at"), new Date(run.at).toLocaleString(i18n.language)],
          [t("admin.events.run.trigger"), trigger(run.trigger)],
          [t("admin.events.run.path"), run.path, "mono"],
          [t("admin.events.run.user"), run.user],
          [t("admin.events.run.result"), result(run)],
          [t("admin.events.run.duration"), t("admin.events.run.duration.value", { ms: run.durationMs })],
          run.error !== "" && [t("admin.events.run.error"), run.error],
        ]}
      />
      <OutputBlock label={t("admin.events.run.stdout")} text={run.stdout} emptyText={t("admin.events.run.empty")} />
      <OutputBlock label={t("admin.events.run.stderr")} text={run.stderr} emptyText={t("admin.events.run.empty")} />
    </div>
  );
}
