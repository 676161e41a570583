import { useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui/button";
import { TextInput } from "~/components/ui/text-input";
import type { loader } from "~/routes/admin.groups";
import { type MemberLevel } from "./schema";

export interface PickedMember {
  userId: number;
  account: string;
  level: MemberLevel;
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
    <fieldset className="flex flex-col gap-2">
      <legend className="mb-1 text-sm font-medium text-gray-800">{t("admin.groups.members")}</legend>
      {members.length === 0 ? (
        <p className="text-sm text-gray-500">{t("admin.groups.members.none")}</p>
      ) : (
        <ul className="flex max-h-40 flex-col gap-1 overflow-auto rounded border border-gray-200 p-2">
          {members.map((m) => (
            <li key={m.userId} className="flex items-center gap-2 text-sm">
              <input type="hidden" name="member" value={`${m.userId}:${m.level}`} />
              <span className="min-w-0 flex-1 truncate">{m.account}</span>
              <select
                aria-label={t("admin.groups.members.permission", { account: m.account })}
                value={m.level}
                onChange={(e) => setLevel(m.userId, e.target.value as MemberLevel)}
                className="h-7 rounded border border-gray-300 bg-white px-1 text-sm"
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
            </li>
          ))}
        </ul>
      )}
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
    </fieldset>
  );
}
