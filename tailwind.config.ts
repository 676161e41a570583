import type { Config } from "tailwindcss";

export default {
  content: ["./app/**/*.{ts,tsx}"],
  theme: {
    extend: {
      colors: {
        // The site's primary colour comes from the engine at run time (GET /api/website/info).
        primary: "var(--color-primary, #FD5C1F)",
      },
    },
  },
  plugins: [],
} satisfies Config;
