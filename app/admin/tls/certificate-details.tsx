import { useTranslation } from "react-i18next";
import { useFormatTime } from "~/utils/use-time-zone";
import type { CertificateInfo } from "../../../contract/tls";
import { cn } from "~/components/ui/cn";
import type { Fact } from "~/components/ui/facts";

const DAY = 24 * 60 * 60 * 1000;

/** A certificate's state as a coloured word, with the days left when it nears expiry. */
export function CertificateState({ certificate, now }: { certificate: CertificateInfo; now: number }) {
  const { t } = useTranslation();
  const tone = certificate.state !== "valid" ? "bg-red-50 text-red-700" : certificate.expiresSoon ? "bg-amber-50 text-amber-800" : "bg-green-50 text-green-700";
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <span className={cn("rounded px-2 py-0.5 text-xs font-medium", tone)}>{t(`admin.tls.state.${certificate.state}`)}</span>
      {certificate.expiresSoon && (
        <span role="status" className="text-sm text-amber-800">
          {t("admin.tls.expires-soon", { count: Math.max(0, Math.ceil((certificate.validTo - now) / DAY)) })}
        </span>
      )}
    </span>
  );
}

/** What the console shows of a certificate: domains, issuer, validity and state, key, fingerprint. */
export function certificateRows(certificate: CertificateInfo, now: number, t: (key: string, options?: Record<string, unknown>) => string, formatTime: (seconds: number) => string): Fact[] {
  return [
    [t("admin.tls.domains"), certificate.domains.join(", ") || "—"],
    [t("admin.tls.validity"), t("admin.tls.validity.range", { from: formatTime(certificate.validFrom / 1000), to: formatTime(certificate.validTo / 1000) })],
    [t("admin.tls.state"), <CertificateState key="state" certificate={certificate} now={now} />],
    [t("admin.tls.issuer"), certificate.selfSigned ? `${certificate.issuer.replace(/\n/g, ", ")} — ${t("admin.tls.self-signed")}` : certificate.issuer.replace(/\n/g, ", ")],
    [t("admin.tls.key"), certificate.keyBits ? t("admin.tls.key.rsa", { bits: certificate.keyBits }) : t("admin.tls.key.other")],
    [t("admin.tls.fingerprint"), certificate.fingerprint, "mono"],
  ];
}

/** The formatter of certificate rows in the reader's time zone. */
export function useCertificateRows() {
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  return (certificate: CertificateInfo, now: number) => certificateRows(certificate, now, t, formatTime);
}
