import type { Config } from "tailwindcss";

export default {
  content: ["./app/**/*.{ts,tsx}"],
  theme: {
    extend: {
      colors: {
        // The site's primary colour comes from the engine at run time (GET /api/website/info).
        primary: {
          DEFAULT: "var(--color-primary, #FD5C1F)",
          // Hover and pressed states: the same hue, darker, so text on it (or in it) only gains contrast.
          dark: "color-mix(in srgb, var(--color-primary, #FD5C1F) 80%, black)",
        },
      },
    },
  },
  plugins: [],
} satisfies Config;
