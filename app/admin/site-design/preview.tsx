import { useTranslation } from "react-i18next";
import { SignInScene, type SceneSite } from "~/auth/signin-scene";
import { readablePrimary } from "~/utils/contrast";
import { productName } from "~/utils/site";

/** The page the preview draws, and the scale it is drawn at. */
const PAGE_WIDTH = 1280;
const PAGE_HEIGHT = 720;
const SCALE = 0.4;

/**
 * The sign-in page as it will look, drawn by the same component /signin uses (SignInScene) at 40 %
 * and following the form as it changes. Its form is a picture of the sign-in form (fields that take
 * no input), hidden from assistive technology: the screen's own fields describe the design.
 */
export function SignInPreview({ site, primaryColor }: { site: SceneSite; primaryColor: string }) {
  const { t, i18n } = useTranslation();
  return (
    <figure className="flex flex-col gap-2">
      <figcaption className="text-sm font-medium text-gray-700">{t("admin.site.preview")}</figcaption>
      <div data-testid="signin-preview" className="overflow-hidden rounded border border-gray-300" style={{ width: PAGE_WIDTH * SCALE, height: PAGE_HEIGHT * SCALE }}>
        <div aria-hidden="true" className="pointer-events-none origin-top-left select-none" style={{ width: PAGE_WIDTH, height: PAGE_HEIGHT, transform: `scale(${SCALE})`, ["--color-primary" as string]: readablePrimary(primaryColor) }}>
          <SignInScene site={site} lang={i18n.language} heading={t("auth.signin.title", { product: productName(site, i18n.language) })} className="h-full p-10">
            <div className="flex flex-col gap-4">
              {[t("auth.account"), t("auth.password")].map((label) => (
                <div key={label} className="flex flex-col gap-1 text-sm">
                  <span className="font-medium text-gray-800">{label}</span>
                  <span className="h-9 rounded border border-gray-300 bg-white" />
                </div>
              ))}
              <span data-testid="preview-button" className="flex h-11 items-center justify-center rounded bg-primary text-base font-medium text-white">
                {t("auth.signin.submit")}
              </span>
            </div>
          </SignInScene>
        </div>
      </div>
    </figure>
  );
}
