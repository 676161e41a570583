import { redirect } from "@remix-run/node";

/** Spec: "/" redirects to /signin (which sends a signed-in user on to /personal). */
export const loader = () => redirect("/signin");
