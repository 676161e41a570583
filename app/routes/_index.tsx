import { redirect } from "@remix-run/node";
import { refusePost } from "~/utils/form.server";

/** Spec: "/" redirects to /signin (which sends a signed-in user on to /personal). */
export const loader = () => redirect("/signin");

/** Takes no posts: 405, the body discarded. */
export const action = refusePost;
