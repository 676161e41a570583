import { Form, Link, useLocation, useSubmit } from "@remix-run/react";
import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import * as z from "zod";
import { Button } from "~/components/ui/button";
import { FormBuilder, type FormField } from "~/components/ui/form";
import { FileIcon, FilesIcon, FolderIcon } from "~/components/ui/icons";
import { Modal } from "~/components/ui/modal";
import { Table, type Column, type RowKey, type SortState } from "~/components/ui/table";
import type { LinkSort } from "./link-query";

/**
 * The parts the user's link list (/link) and the administrator's (Share files, Request files)
 * have in common: row action forms that ask first, the confirmation (dialog with JavaScript, on
 * the page without), the ticked rows, the search form's hidden sort.
 */

/** A link's kind: file, folder, or several files. */
export function LinkTypeIcon({ type }: { type: 0 | 1 | 2 }) {
  const { t } = useTranslation();
  const Icon = type === 0 ? FileIcon : type === 1 ? FolderIcon : FilesIcon;
  return <Icon title={t(`link.type.${type}`)} className={type === 0 ? "shrink-0 text-gray-500" : "shrink-0 text-amber-500"} />;
}

/** One POST form per row action: hidden fields carry the links and the page to come back to. Given `onAsk`, a submit with JavaScript asks in a dialog first; without it the action asks on the page. */
export function LinkActionForm<I extends string>({
  path,
  intent,
  ids,
  back,
  onAsk,
  children,
}: {
  path: string;
  intent: I;
  ids: readonly string[];
  back: string;
  onAsk?: (intent: I, ids: readonly string[]) => void;
  children: ReactNode;
}) {
  const askFirst = (event: FormEvent<HTMLFormElement>) => {
    if (!onAsk) return;
    event.preventDefault();
    onAsk(intent, ids);
  };
  return (
    <Form method="post" action={path} onSubmit={askFirst} className="inline-flex" preventScrollReset>
      <LinkFields intent={intent} ids={ids} back={back} />
      {children}
    </Form>
  );
}

function LinkFields({ intent, ids, back, confirmed = false }: { intent: string; ids: readonly string[]; back: string; confirmed?: boolean }) {
  return (
    <>
      <input type="hidden" name="intent" value={intent} />
      {confirmed && <input type="hidden" name="confirmed" value="1" />}
      <input type="hidden" name="back" value={back} />
      {ids.map((id) => (
        <input key={id} type="hidden" name="id" value={id} />
      ))}
    </>
  );
}

/** What a confirmation acts on, by `label`: exactly the rows whose ids go to the engine. */
export function ConfirmList<L extends { shareId: string }>({ ids, links, label }: { ids: readonly string[]; links: readonly L[]; label: (link: L) => string }) {
  const byId = new Map(links.map((link) => [link.shareId, link]));
  return (
    <ul className="mt-2 max-h-48 list-disc overflow-auto break-all pl-5">
      {ids.map((id) => {
        const link = byId.get(id);
        return <li key={id}>{link ? label(link) : id}</li>;
      })}
    </ul>
  );
}

/** What is being asked: an intent and the links it acts on. */
export type Asking<I extends string> = { intent: I; ids: readonly string[] };

/** The question without JavaScript, on the page (`?confirm=`): Back, or Confirm, which posts the action confirmed. */
export function PageConfirm<I extends string>({ id, path, back, asking, title, message, backLabel, danger, list }: { id: string; path: string; back: string; asking: Asking<I>; title: string; message: string; backLabel: string; danger: boolean; list: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div role="alertdialog" aria-labelledby={id} className="flex flex-wrap items-center gap-3 rounded border border-amber-300 bg-amber-50 px-4 py-3 text-sm">
      <h2 id={id} className="font-medium">
        {title}
      </h2>
      <div className="flex-1">
        <p>{message}</p>
        {list}
      </div>
      <Form method="post" action={path} className="flex gap-2">
        <LinkFields intent={asking.intent} ids={asking.ids} back={back} confirmed />
        <Link to={`${path}${back}`} className="inline-flex h-8 items-center rounded border border-primary bg-white px-4 text-sm text-primary">
          {backLabel}
        </Link>
        <Button type="submit" danger={danger}>
          {t("global.confirm")}
        </Button>
      </Form>
    </div>
  );
}

/** The question with JavaScript: a dialog whose Confirm posts the action confirmed (`useAsk`). */
export function AskModal<I extends string>({ ask, title, message, danger, list }: { ask: AskState<I>; title: (asking: Asking<I>) => string; message: (asking: Asking<I>) => string; danger: (asking: Asking<I>) => boolean; list: (asking: Asking<I>) => ReactNode }) {
  const { t } = useTranslation();
  const { asking } = ask;
  return (
    <Modal open={asking !== null} onClose={ask.close} title={asking ? title(asking) : undefined} danger={asking ? danger(asking) : false} confirmLabel={t("global.confirm")} onConfirm={ask.confirmed}>
      {asking && (
        <>
          <p>{message(asking)}</p>
          {list(asking)}
        </>
      )}
    </Modal>
  );
}

export interface AskState<I extends string> {
  asking: Asking<I> | null;
  ask: (intent: I, ids: readonly string[]) => void;
  close: () => void;
  confirmed: () => void;
}

/** The dialog's state: `ask` opens it, `confirmed` posts the action to `path` with `confirmed=1`. */
export function useAsk<I extends string>(path: string, back: string): AskState<I> {
  const submit = useSubmit();
  const [asking, setAsking] = useState<Asking<I> | null>(null);
  return {
    asking,
    ask: (intent: I, ids: readonly string[]) => setAsking({ intent, ids }),
    close: () => setAsking(null),
    confirmed: () => {
      if (!asking) return;
      const form = new FormData();
      form.set("intent", asking.intent);
      form.set("confirmed", "1");
      form.set("back", back);
      for (const id of asking.ids) form.append("id", id);
      submit(form, { method: "post", action: path, preventScrollReset: true });
    },
  };
}

/** The ticked rows of the page shown; every navigation ends a selection (another page, sort or search, and the redirect back after any action, whose key is what changes). */
export function useLinkSelection<L extends { shareId: string }>(links: readonly L[]) {
  const location = useLocation();
  const [selected, setSelected] = useState<RowKey[]>([]);
  useEffect(() => setSelected([]), [location.key]);
  const selectedSet = new Set(selected.map(String));
  return { selected, setSelected, selectedLinks: links.filter((link) => selectedSet.has(link.shareId)) };
}

/** The search form keeps the list's sort. */
export function SortFields<K extends string>({ sort, keys }: { sort: LinkSort<K>; keys: Record<K, number> }) {
  if (!sort) return null;
  return (
    <>
      <input type="hidden" name="orderBy" value={keys[sort.key]} />
      <input type="hidden" name="order" value={sort.order === "ascending" ? "asc" : "desc"} />
    </>
  );
}

/**
 * The list itself: rows keyed by link id, ticked into the bulk form `bulkForm` (so they post without
 * JavaScript too), expandable, sorted by header clicks (`onSort`) or links (`sortHref`).
 */
export function LinkTable<L extends { shareId: string }, K extends string>({
  columns,
  links,
  rowLabel,
  label,
  selection,
  bulkForm,
  expanded,
  sort,
  onSort,
  sortHref,
}: {
  columns: Column<L>[];
  links: readonly L[];
  rowLabel: (link: L) => string;
  label: string;
  selection: { selected: RowKey[]; setSelected: (keys: RowKey[]) => void };
  bulkForm: string;
  expanded: (link: L) => ReactNode;
  sort: LinkSort<K>;
  onSort: (sort: LinkSort<K>) => void;
  sortHref: (sort: LinkSort<K>) => string;
}) {
  const toSort = (next: SortState | null): LinkSort<K> => (next ? { key: next.key as K, order: next.order } : null);
  return (
    <Table
      columns={columns}
      data={links}
      rowKey={(link) => link.shareId}
      rowLabel={rowLabel}
      label={label}
      selectedKeys={selection.selected}
      onSelectionChange={(keys) => selection.setSelected(keys)}
      selectionField={{ name: "id", form: bulkForm }}
      expandedRender={expanded}
      sort={sort as SortState | null}
      onSortChange={(next) => onSort(toSort(next))}
      sortHref={(next) => sortHref(toSort(next))}
    />
  );
}

/** The search form's rules: name, status and creation days (the administrator's adds the owner). */
export const linkSearchSchema = z.object({
  name: z.string().max(255).optional(),
  status: z.enum(["1", "2", "3"]).optional(),
  created: z.object({ start: z.string().max(10).optional(), end: z.string().max(10).optional() }).optional(),
});

/** The status select and the creation range of the search form. */
export function linkFilterFields(labels: { status: string; all: string; statusOf: (status: 1 | 2 | 3) => string; created: string }): FormField[] {
  return [
    { name: "status", label: labels.status, type: "select", placeholder: labels.all, options: ([1, 2, 3] as const).map((s) => ({ value: String(s), label: labels.statusOf(s) })) },
    { name: "created", label: labels.created, type: "rangePicker" },
  ];
}

/** The search: a plain GET form to the list's own address (so it works without JavaScript), with `children` as the hidden parts of the list's state it keeps. */
export function LinkSearch<Schema extends z.ZodType>({
  label,
  path,
  schema,
  fields,
  defaultValue,
  onReset,
  children,
}: {
  label: string;
  path: string;
  schema: Schema;
  fields: FormField[];
  defaultValue: Record<string, unknown>;
  onReset: () => void;
  children: ReactNode;
}) {
  const location = useLocation();
  return (
    <div role="search" aria-label={label}>
      <FormBuilder key={location.search} schema={schema} fields={fields} layout="search" method="get" as={Form} action={path} defaultValue={defaultValue} onReset={onReset}>
        {children}
      </FormBuilder>
    </div>
  );
}
