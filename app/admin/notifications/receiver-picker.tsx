import { useFetcher } from "@remix-run/react";
import { useEffect, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { PlainCheckbox } from "~/components/ui/checkbox";
import { TextInput } from "~/components/ui/text-input";
import type { loader } from "~/routes/admin.notifications";

export interface PickedUser {
  id: number;
  account: string;
  email: string;
}

/** The picked users, each with its address (or that it has none: it gets no mail), and `control` beside it. */
function PickedList({ users, control, children }: { users: PickedUser[]; control: (user: PickedUser) => ReactNode; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="mb-1 text-sm font-medium text-gray-800">{t("admin.notices.picked")}</legend>
      {users.length === 0 ? (
        <p className="text-sm text-gray-500">{t("admin.notices.picked.none")}</p>
      ) : (
        <ul className="flex max-h-40 flex-col gap-1 overflow-auto rounded border border-gray-200 p-2">
          {users.map((u) => (
            <li key={u.id} className="flex items-center gap-2 text-sm">
              <span className="min-w-0 flex-1 truncate">
                {u.account}
                <span className="ml-2 text-gray-500">{u.email || t("admin.notices.no-address")}</span>
              </span>
              {control(u)}
            </li>
          ))}
        </ul>
      )}
      {children}
    </fieldset>
  );
}

/**
 * Receivers with JavaScript: the picked users (posted as `receiver=<id>`) and a search over the users
 * (GET /api/admin/users through the page's loader, `users=<text>`) to add more. The same search as
 * the group dialog's associated users.
 */
export function ReceiverPicker({ picked, onChange }: { picked: PickedUser[]; onChange: (next: PickedUser[]) => void }) {
  const { t } = useTranslation();
  const finder = useFetcher<typeof loader>();
  const [query, setQuery] = useState("");
  useEffect(() => {
    if (!query.trim()) return;
    const timer = setTimeout(() => finder.load(`/admin/notifications?users=${encodeURIComponent(query.trim())}`), 250);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reload on the query only
  }, [query]);
  const found = query.trim() ? (finder.data?.picker ?? []).filter((u) => !picked.some((p) => p.id === u.id)) : [];
  return (
    <PickedList
      users={picked}
      control={(u) => (
        <>
          <input type="hidden" name="receiver" value={u.id} />
          <Button size="small" variant="text" aria-label={t("admin.notices.unpick", { account: u.account })} onClick={() => onChange(picked.filter((p) => p.id !== u.id))}>
            {t("admin.notices.unpick.short")}
          </Button>
        </>
      )}
    >
      <TextInput type="search" label={t("admin.notices.find")} value={query} maxLength={64} onChange={(e) => setQuery(e.target.value)} />
      {found.length > 0 && (
        <ul aria-label={t("admin.notices.found")} className="flex max-h-40 flex-col gap-1 overflow-auto">
          {found.map((u) => (
            <li key={u.id} className="flex items-center gap-2 text-sm">
              <span className="min-w-0 flex-1 truncate">
                {u.account}
                <span className="ml-2 text-gray-500">{u.email || t("admin.notices.no-address")}</span>
              </span>
              <Button size="small" variant="outlined" aria-label={t("admin.notices.pick", { account: u.account })} onClick={() => onChange([...picked, u])}>
                {t("admin.notices.pick.short")}
              </Button>
            </li>
          ))}
        </ul>
      )}
    </PickedList>
  );
}

/**
 * Receivers without JavaScript: each picked user is a ticked box (untick to remove); Find submits the
 * whole form as a GET (the page comes back with what was typed and the users found), and each user
 * found is a box that adds it.
 */
export function PlainReceivers({ picked, found, search }: { picked: PickedUser[]; found: PickedUser[] | null; search: string }) {
  const { t } = useTranslation();
  const more = (found ?? []).filter((u) => !picked.some((p) => p.id === u.id));
  return (
    <PickedList users={picked} control={(u) => <PlainCheckbox name="receiver" value={String(u.id)} defaultChecked label={t("admin.notices.keep", { account: u.account })} />}>
      <div className="flex items-end gap-2">
        <TextInput type="search" name="users" label={t("admin.notices.find")} defaultValue={search} maxLength={64} className="w-72" />
        <Button type="submit" variant="outlined" formMethod="get" formAction="/admin/notifications" formNoValidate>
          {t("admin.notices.find.button")}
        </Button>
      </div>
      {found !== null &&
        (more.length === 0 ? (
          <p className="text-sm text-gray-500">{t("admin.notices.found.none")}</p>
        ) : (
          <ul aria-label={t("admin.notices.found")} className="flex flex-col gap-1">
            {more.map((u) => (
              <li key={u.id}>
                <PlainCheckbox name="receiver" value={String(u.id)} label={t("admin.notices.pick", { account: u.account })} />
              </li>
            ))}
          </ul>
        ))}
    </PickedList>
  );
}
