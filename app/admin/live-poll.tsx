import { useFetcher, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { ButtonLink } from "~/components/ui/button";

/**
 * The live values of an administrator's live list (General tasks, Point to point): the loader's
 * snapshot first, then (with JavaScript) the answer of the resource route `url` every `everyMs`
 * while the tab is visible; a new snapshot (after a Stop, a search, a page) replaces them at once.
 * An engine that stops answering keeps the last values on screen, marked stale.
 * Each poll is tagged with the generation of the snapshot (and search) it was asked under: an answer
 * to a poll asked before the latest snapshot is dropped, so a transfer just stopped does not come
 * back for a moment. No poll is asked while a navigation (a Stop, a search) is under way.
 * `search` is the query's engine form: it names everything the poll depends on.
 * Without JavaScript the snapshot stays, with a Refresh link.
 */
export function useLivePoll<T extends { unreachable: boolean }>(initial: T, { key, url, search, everyMs }: { key: string; url: string; search: string; everyMs: number }): { live: T; stale: boolean } {
  const fetcher = useFetcher<T>({ key });
  const navigation = useNavigation();
  const [live, setLive] = useState(initial);
  const [stale, setStale] = useState(false);
  /** Bumped by every new snapshot or search; `asked` is the generation the last poll was asked under. */
  const generation = useRef(0);
  const asked = useRef(-1);
  useEffect(() => {
    generation.current += 1;
    setLive(initial);
    setStale(false);
  }, [initial, search]);
  useEffect(() => {
    // The resource routes answer T as JSON, and T's values are plain JSON already.
    const polled = fetcher.data as T | undefined;
    if (!polled) return;
    // Asked before the snapshot now shown (or for another search): older than what is on screen.
    if (asked.current !== generation.current) return;
    if (polled.unreachable) setStale(true);
    else {
      setLive(polled);
      setStale(false);
    }
  }, [fetcher.data]);
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState !== "visible" || fetcher.state !== "idle" || navigation.state !== "idle") return;
      asked.current = generation.current;
      fetcher.load(url);
    }, everyMs);
    return () => clearInterval(timer);
    // The query's engine form names everything the poll depends on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search, fetcher.state, navigation.state]);
  return { live, stale };
}

/** A live list's heading: what it shows, that it updates (with JavaScript) or is a snapshot (without), a Refresh link, and the engine's silence. */
export function LiveHeading({ intro, updating, snapshot, refresh, refreshHref, unreachable }: { intro: string; updating: string; snapshot: string; refresh: string; refreshHref: string; unreachable: string | null }) {
  return (
    <>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-gray-600">
          {intro} <span data-script-only="">{updating}</span>
          <noscript>{snapshot}</noscript>
        </p>
        <ButtonLink href={refreshHref} variant="outlined">
          {refresh}
        </ButtonLink>
      </div>
      {unreachable !== null && (
        <p role="status" className="text-sm text-red-700">
          {unreachable}
        </p>
      )}
    </>
  );
}
