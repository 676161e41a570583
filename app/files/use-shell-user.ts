import { useRouteLoaderData } from "@remix-run/react";
import type { loader } from "~/routes/_app";

/** The signed-in user as the shell's loader read it (permission, groups, switches). */
export function useShellUser() {
  return useRouteLoaderData<typeof loader>("routes/_app")?.user ?? null;
}
