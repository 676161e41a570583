import { useId } from "react";
import { useTranslation } from "react-i18next";
import type { DashboardTuning, TuningCheck } from "../../../contract/dashboard";
import { Button } from "~/components/ui/button";
import { useToast } from "~/components/ui/toast";
import { copyToClipboard } from "~/shares/clipboard";
import { useHydrated } from "~/utils/use-hydrated";
import { useFormatTime } from "./format";

/**
 * Host tuning on the dashboard (issue 16; docs/doctor.md, "The admin dashboard"): one line saying
 * whether the doctor's quick checks find a setting that slows transfers; a <details> under it (works
 * without JavaScript, opens with Enter or Space) lists each check at warn with what was found and
 * the sysctl lines that fix it, and the checks that could not be made here.
 */

/** What to do beyond the sysctl lines, by check: a command to show, and whether it only applies when the doctor gives advice. */
const HINTS: Partial<Record<TuningCheck["id"], { code: string | null; onlyWithAdvice?: boolean }>> = {
  congestion: { code: "modprobe tcp_bbr", onlyWithAdvice: true },
  qdisc: { code: "tc qdisc replace dev <interface> root fq" },
  "open-files": { code: "LimitNOFILE=65536", onlyWithAdvice: true },
  disk: { code: null },
  clock: { code: "timedatectl set-ntp true" },
};

const CODE = "font-mono text-xs";
const BLOCK = "overflow-x-auto whitespace-pre rounded bg-gray-50 px-2 py-1 font-mono text-xs text-gray-900";

/** A translated sentence with `{{command}}` shown as code. */
function WithCommand({ text, command }: { text: string; command: string }) {
  const [before, after] = text.split("\u0000");
  return (
    <>
      {before}
      <code className={CODE}>{command}</code>
      {after}
    </>
  );
}

function CopyButton({ text, name }: { text: string; name: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  const hydrated = useHydrated();
  // Without JavaScript the lines are selected and copied by hand.
  if (!hydrated) return null;
  const copy = async () => {
    if (await copyToClipboard(text)) toast.success(t("dashboard.tuning.copied"));
    else toast.error(t("dashboard.tuning.copy-failed"));
  };
  return (
    <Button size="small" variant="outlined" aria-label={t("dashboard.tuning.copy.name", { name })} onClick={() => void copy()}>
      {t("dashboard.tuning.copy")}
    </Button>
  );
}

function WarnCheck({ check }: { check: TuningCheck }) {
  const { t } = useTranslation();
  const name = t(`dashboard.tuning.check.${check.id}`);
  const lines = check.sysctl.map((s) => `${s.key} = ${s.value}`).join("\n");
  const hint = HINTS[check.id];
  const showHint = hint && (!hint.onlyWithAdvice || check.advice !== null);
  const headingId = useId();
  return (
    <li aria-labelledby={headingId} className="flex flex-col gap-1">
      <p className="text-sm">
        <strong id={headingId} className="font-medium text-gray-900">
          {name}
        </strong>
        <span className="text-amber-900"> — {t("dashboard.tuning.status.warn")}</span>
      </p>
      <p className="text-xs text-gray-700">
        {t("dashboard.tuning.found")} <code className={CODE}>{check.found}</code>
      </p>
      {lines && (
        <div className="flex flex-col gap-1">
          <div className="flex items-center justify-between gap-2">
            <span className="text-xs text-gray-700">{t("dashboard.tuning.fix")}</span>
            <CopyButton text={`${lines}\n`} name={name} />
          </div>
          <pre className={BLOCK}>
            <code>{lines}</code>
          </pre>
        </div>
      )}
      {showHint && (
        <>
          <p className="text-xs text-gray-700">{t(`dashboard.tuning.hint.${check.id}`)}</p>
          {hint.code && (
            <pre className={BLOCK}>
              <code>{hint.code}</code>
            </pre>
          )}
        </>
      )}
    </li>
  );
}

export function TuningLine({ tuning }: { tuning: DashboardTuning }) {
  const { t } = useTranslation();
  const time = useFormatTime("time");
  const warn = tuning.checks.filter((c) => c.status === "warn");
  const unknown = tuning.checks.filter((c) => c.status === "unknown");
  const ok = tuning.checks.filter((c) => c.status === "ok");
  const names = (list: TuningCheck[]) => list.map((c) => t(`dashboard.tuning.short.${c.id}`)).join(t("dashboard.tuning.separator"));
  const line =
    warn.length > 0 ? (
      <WithCommand text={t("dashboard.tuning.warn", { count: warn.length, names: names(warn), command: "\u0000" })} command="ferry doctor" />
    ) : unknown.length > 0 ? (
      t("dashboard.tuning.good.unknown", { count: unknown.length, names: names(unknown) })
    ) : (
      t("dashboard.tuning.good")
    );
  const look = warn.length > 0 ? "text-amber-900" : "text-gray-900";
  if (warn.length === 0 && unknown.length === 0) return <p className={`mt-3 text-sm ${look}`}>{line}</p>;
  return (
    <details className="mt-3 text-sm">
      <summary className={`cursor-pointer ${look}`}>{line}</summary>
      <div className="mt-2 flex flex-col gap-3 border-l-2 border-gray-200 pl-3">
        {warn.length > 0 && (
          <ul className="flex flex-col gap-3">
            {warn.map((c) => (
              <WarnCheck key={c.id} check={c} />
            ))}
          </ul>
        )}
        {unknown.length > 0 && (
          <ul className="flex flex-col gap-1">
            {unknown.map((c) => (
              <li key={c.id} className="text-xs text-gray-700">
                <strong className="font-medium text-gray-900">{t(`dashboard.tuning.check.${c.id}`)}</strong> — {t("dashboard.tuning.status.unknown")} <code className={CODE}>{c.found}</code>
              </li>
            ))}
            <li className="text-xs text-gray-600">{t("dashboard.tuning.unknown")}</li>
          </ul>
        )}
        {ok.length > 0 && <p className="text-xs text-gray-700">{t("dashboard.tuning.ok", { names: names(ok) })}</p>}
        {warn.some((c) => c.sysctl.length > 0) && <p className="text-xs text-gray-600">{t("dashboard.tuning.apply")}</p>}
        <p className="text-xs text-gray-600">
          {t("dashboard.tuning.checked", { time: time(tuning.checkedAt) })}
        </p>
      </div>
    </details>
  );
}
