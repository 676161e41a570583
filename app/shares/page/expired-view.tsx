import { useTranslation } from "react-i18next";

/** The expired view (spec section 4): an image and the message, for an expired, cancelled, disabled or unknown link. */
export function ExpiredView() {
  const { t } = useTranslation();
  return (
    <section aria-labelledby="share-expired-title" className="mx-auto mt-8 flex w-full max-w-[420px] flex-col items-center gap-3 rounded-lg bg-white px-6 py-10 text-center shadow sm:mt-16 sm:px-8">
      <ExpiredIllustration />
      <h1 id="share-expired-title" className="text-lg font-semibold text-gray-900">
        {t("share.expired.title")}
      </h1>
      <p className="text-sm text-gray-700">{t("app.share.link-expired")}</p>
      <p className="text-xs text-gray-500">{t("share.expired.hint")}</p>
    </section>
  );
}

/** A broken link under an hourglass; decoration only (the text says what it means). */
function ExpiredIllustration() {
  return (
    <svg aria-hidden="true" focusable="false" width="160" height="112" viewBox="0 0 160 112" fill="none">
      <ellipse cx="80" cy="100" rx="64" ry="8" className="fill-gray-100" />
      <rect x="34" y="28" width="92" height="64" rx="6" className="fill-white stroke-gray-300" strokeWidth="2" />
      <path d="M34 40h92" className="stroke-gray-300" strokeWidth="2" />
      <circle cx="42" cy="34" r="2" className="fill-gray-300" />
      <circle cx="50" cy="34" r="2" className="fill-gray-300" />
      <path d="M62 66a8 8 0 0 1 0-11.3l6-6a8 8 0 0 1 11.3 11.3l-2.5 2.5" className="stroke-gray-400" strokeWidth="3" strokeLinecap="round" />
      <path d="M98 62a8 8 0 0 1 0 11.3l-6 6a8 8 0 0 1-11.3-11.3l2.5-2.5" className="stroke-gray-400" strokeWidth="3" strokeLinecap="round" />
      <path d="M76 58l-3-5M84 70l3 5M70 66h-5M90 62h5" className="stroke-primary" strokeWidth="2.5" strokeLinecap="round" />
      <g transform="translate(112 6)">
        <circle cx="16" cy="16" r="15" className="fill-white stroke-primary" strokeWidth="2" />
        <path d="M11 8h10M11 24h10M12 8c0 5 8 5 8 8s-8 3-8 8M20 8c0 5-8 5-8 8s8 3 8 8" className="stroke-primary" strokeWidth="1.8" strokeLinecap="round" />
      </g>
    </svg>
  );
}
