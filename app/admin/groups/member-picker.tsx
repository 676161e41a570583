import { useFetcher } from "@remix-run/react";
import { useEffect, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { PlainCheckbox } from "~/components/ui/checkbox";
import { TextInput } from "~/components/ui/text-input";
import type { loader } from "~/routes/admin.groups";
import { type MemberLevel } from "./schema";

export interface PickedMember {
  userId: number;
  account: string;
  level: MemberLevel;
}

const SELECT_CLASS = "h-7 rounded border border-gray-300 bg-white px-1 text-sm";

/** The associated users' fieldset: each member's account with `control(member)`, then `children` (the search). */
function MemberFieldset({ members, control, children }: { members: PickedMember[]; control: (member: PickedMember) => ReactNode; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="mb-1 text-sm font-medium text-gray-800">{t("admin.groups.members")}</legend>
      {members.length === 0 ? (
        <p className="text-sm text-gray-500">{t("admin.groups.members.none")}</p>
      ) : (
        <ul className="flex max-h-40 flex-col gap-1 overflow-auto rounded border border-gray-200 p-2">
          {members.map((m) => (
            <li key={m.userId} className="flex items-center gap-2 text-sm">
              <span className="min-w-0 flex-1 truncate">{m.account}</span>
              {control(m)}
            </li>
          ))}
        </ul>
      )}
      {children}
    </fieldset>
  );
}

/**
 * The dialog's associated users: the current list (each with its permission and a Remove button) and
 * a search over the users (GET /api/admin/users through the page's loader) to add more. The list is
 * posted with the dialog as `member=<id>:<level>`; saving applies the difference.
 */
export function MemberPicker({ members, onChange }: { members: PickedMember[]; onChange: (next: PickedMember[]) => void }) {
  const { t } = useTranslation();
  const finder = useFetcher<typeof loader>();
  const [query, setQuery] = useState("");
  useEffect(() => {
    if (!query.trim()) return;
    const timer = setTimeout(() => finder.load(`/admin/groups?users=${encodeURIComponent(query.trim())}`), 250);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- finder.load is stable enough; reload on the query only
  }, [query]);
  const found = query.trim() ? (finder.data?.picker ?? []).filter((u) => !members.some((m) => m.userId === u.id)) : [];
  const setLevel = (userId: number, level: MemberLevel) => onChange(members.map((m) => (m.userId === userId ? { ...m, level } : m)));
  return (
    <MemberFieldset
      members={members}
      control={(m) => (
        <>
          <input type="hidden" name="member" value={`${m.userId}:${m.level}`} />
          <select
            aria-label={t("admin.groups.members.permission", { account: m.account })}
            value={m.level}
            onChange={(e) => setLevel(m.userId, e.target.value as MemberLevel)}
            className={SELECT_CLASS}
          >
            <option value="read">{t("admin.groups.members.read")}</option>
            <option value="full">{t("admin.groups.members.full")}</option>
          </select>
          <Button
            size="small"
            variant="text"
            aria-label={t("admin.groups.members.remove", { account: m.account })}
            onClick={() => onChange(members.filter((x) => x.userId !== m.userId))}
          >
            {t("admin.groups.members.remove.short")}
          </Button>
        </>
      )}
    >
      <TextInput type="search" label={t("admin.groups.members.find")} value={query} maxLength={64} onChange={(e) => setQuery(e.target.value)} />
      {found.length > 0 && (
        <ul aria-label={t("admin.groups.members.found")} className="flex max-h-40 flex-col gap-1 overflow-auto">
          {found.map((u) => (
            <li key={u.id} className="flex items-center gap-2 text-sm">
              <span className="min-w-0 flex-1 truncate">
                {u.account}
                {u.email && <span className="ml-2 text-gray-500">{u.email}</span>}
              </span>
              <Button
                size="small"
                variant="outlined"
                aria-label={t("admin.groups.members.add", { account: u.account })}
                onClick={() => onChange([...members, { userId: u.id, account: u.account, level: "read" }])}
              >
                {t("admin.groups.members.add.short")}
              </Button>
            </li>
          ))}
        </ul>
      )}
    </MemberFieldset>
  );
}

/**
 * The associated users without JavaScript: each current one with a select (read, full, or remove,
 * posted as `<id>:none`); Find users submits the whole form as a GET (the page comes back with what
 * was typed and the users found), and each user found is a checkbox that adds it with read access.
 */
export function PlainMembers({ members, found, search }: { members: PickedMember[]; found: Array<{ id: number; account: string; email: string }> | null; search: string }) {
  const { t } = useTranslation();
  const more = (found ?? []).filter((u) => !members.some((m) => m.userId === u.id));
  return (
    <MemberFieldset
      members={members}
      control={(m) => (
        <select name="member" aria-label={t("admin.groups.members.permission", { account: m.account })} defaultValue={`${m.userId}:${m.level}`} className={SELECT_CLASS}>
          <option value={`${m.userId}:read`}>{t("admin.groups.members.read")}</option>
          <option value={`${m.userId}:full`}>{t("admin.groups.members.full")}</option>
          <option value={`${m.userId}:none`}>{t("admin.groups.members.remove.short")}</option>
        </select>
      )}
    >
      <div className="flex items-end gap-2">
        <TextInput type="search" name="users" label={t("admin.groups.members.find")} defaultValue={search} maxLength={64} className="w-72" />
        <Button type="submit" variant="outlined" formMethod="get" formAction="/admin/groups" formNoValidate>
          {t("admin.groups.members.find.button")}
        </Button>
      </div>
      {found !== null &&
        (more.length === 0 ? (
          <p className="text-sm text-gray-500">{t("admin.groups.members.found.none")}</p>
        ) : (
          <ul aria-label={t("admin.groups.members.found")} className="flex flex-col gap-1">
            {more.map((u) => (
              <li key={u.id}>
                <PlainCheckbox
                  name="member"
                  value={`${u.id}:read`}
                  label={
                    <>
                      {t("admin.groups.members.add", { account: u.account })}
                      {u.email && <span className="ml-2 text-gray-500">{u.email}</span>}
                    </>
                  }
                />
              </li>
            ))}
          </ul>
        ))}
    </MemberFieldset>
  );
}
