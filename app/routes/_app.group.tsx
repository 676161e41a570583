import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useNavigate } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Table, type Column } from "~/components/ui/table";
import { formatSize } from "~/utils/format";
import { useFormatTime } from "~/utils/use-time-zone";
import { requireUser } from "~/utils/session.server";
import type { groupListData } from "../../contract/users";
import type * as z from "zod";

type Group = z.infer<typeof groupListData>["groupList"][number];

/** The user's groups (name, home size, create time); a row opens /group/detail/{id}. */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const reply = await user.call<z.infer<typeof groupListData>>("/api/user/group/list");
  if (!reply.result || !reply.data) throw new Response(reply.message, { status: 502 });
  return data({ groups: reply.data.groupList }, { headers: { "Set-Cookie": await user.commit() } });
}

export default function GroupListPage() {
  const { t } = useTranslation();
  const formatTime = useFormatTime();
  const { groups } = useLoaderData<typeof loader>();
  const navigate = useNavigate();
  const columns: Column<Group>[] = [
    {
      type: "custom",
      key: "groupName",
      title: t("files.group.name"),
      sort: (a, b) => a.groupName.localeCompare(b.groupName),
      render: (group) => (
        <button
          type="button"
          className="truncate text-left text-primary hover:underline"
          aria-label={t("files.group.open", { name: group.groupName })}
          onClick={() => navigate(`/group/detail/${group.groupId}`, { state: { groupId: group.groupId } })}
        >
          {group.groupName}
        </button>
      ),
    },
    { type: "custom", key: "userHomeSize", title: t("files.group.size"), width: 180, sort: (a, b) => a.userHomeSize - b.userHomeSize, render: (group) => formatSize(group.userHomeSize) },
    { type: "custom", key: "create_time", title: t("files.group.time"), width: 220, sort: (a, b) => a.create_time - b.create_time, render: (group) => formatTime(group.create_time) },
  ];
  return (
    <section>
      <h1 className="mb-4 text-lg font-semibold">{t("shell.page.group")}</h1>
      <Table columns={columns} data={groups} rowKey="groupId" rowLabel={(group) => group.groupName} label={t("files.groups")} sortLocally />
    </section>
  );
}
