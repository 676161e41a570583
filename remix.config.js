/**
 * Remix v2, classic compiler. Tailwind runs through the compiler's built-in support
 * (tailwind.config.ts is picked up; no PostCSS config needed).
 * v3_routeConfig stays off: it needs the Vite plugin.
 * @type {import('@remix-run/dev').AppConfig}
 */
export default {
  ignoredRouteFiles: ["**/.*", "**/*.test.{ts,tsx}"],
  serverModuleFormat: "esm",
  serverPlatform: "node",
  tailwind: true,
  postcss: true,
  future: {
    v3_fetcherPersist: true,
    v3_lazyRouteDiscovery: true,
    v3_relativeSplatPath: true,
    v3_singleFetch: true,
    v3_throwAbortReason: true,
  },
};
