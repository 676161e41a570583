import { useSyncExternalStore } from "react";

const subscribeNothing = () => () => {};

/** False while the server renders and the browser hydrates; true once JavaScript runs the page. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeNothing,
    () => true,
    () => false,
  );
}
