import type { CSSProperties, ReactNode } from "react";
import { productName } from "~/utils/site";
import type { SiteInfo } from "../../contract/site";

/** Login box positions 1–9: a 3 × 3 grid read left to right, top to bottom; 5 is the centre. */
const ROW = ["items-start", "items-center", "items-end"];
const COLUMN = ["justify-start", "justify-center", "justify-end"];

export type SceneSite = Pick<SiteInfo, "position" | "opacity" | "backgroundColor" | "is_bg_change" | "background" | "is_logo_change" | "logo" | "raysyncZH" | "raysyncEN">;

/**
 * The sign-in page's scene from the site's branding (docs/admin-api.md, "Site design"): the
 * background colour or image, the box at its position with its opacity, the logo or the product name,
 * and the page's form (`children`). /signin renders it full size; the site design screen renders the
 * same component scaled down as its live preview.
 */
export function SignInScene({ site, lang, heading, children, top, className = "min-h-full px-4 pb-4 pt-16 sm:p-10" }: { site: SceneSite; lang: string; heading: ReactNode; children: ReactNode; top?: ReactNode; className?: string }) {
  const position = Math.min(9, Math.max(1, site.position)) - 1;
  const background: CSSProperties = site.is_bg_change && site.background ? { backgroundImage: `url(${site.background})`, backgroundSize: "cover", backgroundPosition: "center" } : {};
  const opacity = Math.min(100, Math.max(30, site.opacity ?? 100)) / 100;
  const product = productName(site, lang);
  return (
    <div className={`flex ${className} ${ROW[Math.floor(position / 3)]} ${COLUMN[position % 3]}`} style={{ backgroundColor: site.backgroundColor, ...background }}>
      {top}
      <main className="w-full max-w-[400px] rounded-lg p-6 shadow-lg sm:p-8" style={{ backgroundColor: `rgba(255, 255, 255, ${opacity})` }}>
        {site.is_logo_change && site.logo ? (
          <img src={site.logo} alt={product} className="mb-4 max-h-[70px] max-w-[160px]" />
        ) : (
          <div aria-hidden="true" className="mb-4 text-2xl font-bold text-primary">
            {product}
          </div>
        )}
        <h1 className="mb-6 text-xl font-semibold">{heading}</h1>
        {children}
      </main>
    </div>
  );
}
