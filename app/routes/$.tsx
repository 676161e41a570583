import { redirect } from "@remix-run/node";

/** Spec: any other path redirects to /signin. */
export const loader = () => redirect("/signin");
export const action = () => redirect("/signin");
