/** The auto-clean buttons of a local storage (app/admin/storage/autoclean-panel.tsx). */
export const adminAutoCleanEn = {
  "admin.autoclean.title": "Auto-clean",
  "admin.autoclean.dry-run": "Dry run",
  "admin.autoclean.run-now": "Run now",
  "admin.autoclean.col.path": "File",
  "admin.autoclean.col.size": "Size (bytes)",
  "admin.autoclean.col.time": "Last used",
  "admin.autoclean.col.action": "Action",
  "admin.autoclean.action.recycle": "Move to {{to}}",
  "admin.autoclean.action.delete": "Delete",
  "admin.autoclean.summary.dry": "A run would move {{moved}} and delete {{deleted}} files ({{bytes}} bytes); {{inUse}} in use would be left; {{errors}} errors.",
  "admin.autoclean.summary.run": "Moved {{moved}} and deleted {{deleted}} files ({{bytes}} bytes); {{inUse}} in use were left; {{errors}} errors.",
  "admin.autoclean.truncated": "It stopped at its limit; the next run goes on.",
  "admin.autoclean.list.dry": "Files a run would clean",
  "admin.autoclean.list.run": "Files cleaned",
};

export const adminAutoCleanZh: Record<keyof typeof adminAutoCleanEn, string> = {
  "admin.autoclean.title": "自动清理",
  "admin.autoclean.dry-run": "试运行",
  "admin.autoclean.run-now": "立即运行",
  "admin.autoclean.col.path": "文件",
  "admin.autoclean.col.size": "大小（字节）",
  "admin.autoclean.col.time": "最后使用",
  "admin.autoclean.col.action": "操作",
  "admin.autoclean.action.recycle": "移至 {{to}}",
  "admin.autoclean.action.delete": "删除",
  "admin.autoclean.summary.dry": "运行将移动 {{moved}} 个、删除 {{deleted}} 个文件（{{bytes}} 字节）；{{inUse}} 个正在使用的文件将保留；错误 {{errors}} 个。",
  "admin.autoclean.summary.run": "已移动 {{moved}} 个、删除 {{deleted}} 个文件（{{bytes}} 字节）；{{inUse}} 个正在使用的文件已保留；错误 {{errors}} 个。",
  "admin.autoclean.truncated": "已达到本次上限而停止，下次运行将继续。",
  "admin.autoclean.list.dry": "运行将清理的文件",
  "admin.autoclean.list.run": "已清理的文件",
};
