import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import type { CSSProperties } from "react";
import type { SiteInfo } from "../../contract/site";
import { engineFetch } from "~/utils/engine.server";

// Placeholder until the web client issue: shows that the web reaches the engine.

interface Health {
  status: "ok";
  version: string;
  database: string;
}

const FALLBACK_NAME = "Ferry";
const FALLBACK_COLOR = "#2563eb";

export async function loader({ request }: LoaderFunctionArgs) {
  const [site, health] = await Promise.allSettled([
    engineFetch<SiteInfo>("/api/website/info", { request }),
    engineFetch<Health>("/api/health", { request }),
  ]);
  const info = site.status === "fulfilled" && site.value.result ? site.value.data : null;
  const color = info?.primaryColor && /^#[0-9a-f]{3,8}$/i.test(info.primaryColor) ? info.primaryColor : FALLBACK_COLOR;
  let engine: { online: true; database: string; version: string } | { online: false; reason: string };
  if (health.status === "fulfilled" && health.value.result && health.value.data) {
    engine = { online: true, database: health.value.data.database, version: health.value.data.version };
  } else {
    const reason =
      health.status === "fulfilled"
        ? health.value.message
        : health.reason instanceof Error
          ? health.reason.message
          : "no answer";
    if (health.status === "rejected") console.error("[web] engine health check failed:", reason);
    engine = { online: false, reason };
  }
  // 503 when the engine is down, so a monitor watching the page notices.
  return data({ productName: info?.raysyncEN || FALLBACK_NAME, primaryColor: color, engine }, { status: engine.online ? 200 : 503 });
}

export const meta: MetaFunction<typeof loader> = ({ data: page }) => [{ title: page?.productName ?? FALLBACK_NAME }];

export default function Index() {
  const { productName, primaryColor, engine } = useLoaderData<typeof loader>();
  return (
    <main
      className="flex min-h-full items-center justify-center bg-primary p-6"
      style={{ "--color-primary": primaryColor } as CSSProperties}
    >
      <div className="w-full max-w-md rounded-2xl bg-white p-8 text-center shadow-xl">
        <h1 className="text-3xl font-bold tracking-tight text-gray-900">{productName}</h1>
        <div className="mt-5 text-gray-700" role="status">
          <p className="flex items-center justify-center gap-2">
            <span
              aria-hidden="true"
              className={`inline-block h-2.5 w-2.5 shrink-0 rounded-full ${engine.online ? "bg-green-600" : "bg-red-600"}`}
            />
            {engine.online ? (
              <span>
                Engine online (database {engine.database}, version {engine.version})
              </span>
            ) : (
              <span>Engine unreachable</span>
            )}
          </p>
          {engine.online ? null : <p className="mt-1 break-words text-sm text-gray-500">{engine.reason}</p>}
        </div>
        <p className="mt-6 border-t border-gray-100 pt-5 text-sm text-gray-500">
          Sign-in arrives with the web client issue.
        </p>
      </div>
    </main>
  );
}
