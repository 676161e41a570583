import { errors } from "../../contract/errors";

/**
 * Every UI text, in English and Chinese. Keys are flat and may contain dots (the spec's keys do,
 * e.g. "global.confirm.delete", "atuh.password.rule-error" — spelling as in the product), so i18next
 * runs with keySeparator: false. The engine's error messages come from the contract's catalogue as
 * `error.<code>`, so a code is translated the same way on both sides.
 */
const en = {
  "global.tips": "Tips",
  "global.cancel": "Cancel",
  "global.confirm": "Confirm",
  "global.confirm.delete": "Delete",
  "global.search": "Search",
  "global.reset": "Reset",
  "global.all": "All",
  "global.delete": "Delete",
  "global.close": "Close",
  "global.loading": "Loading",
  "global.no-data": "No data",
  "global.field.required": "This field is required",
  "global.pagination.total": "Total {{total}} items",
  "global.pagination.page": "{{size}} / page",
  "global.pagination.previous": "Previous page",
  "global.pagination.next": "Next page",
  "global.pagination.goto": "Page {{page}}",
  "global.pagination.size": "Items per page",
  "global.table.select-all": "Select all rows",
  "global.table.select-row": "Select row",
  "global.table.expand-row": "Expand row",
  "global.table.collapse-row": "Collapse row",
  "global.table.sort": "Sort by {{column}}",
  "global.server.error": "Service unavailable: the server is overloaded or down. Please try again later.",
  "global.modal.logout": "Your sign-in has expired. Please sign in again.",
  "global.error.unknown": "Unknown error: {{code}}",
  "global.error.something-wrong": "Something went wrong [{{code}}]",
  // kit: basics
  // kit: overlays
  "global.toast.region": "Notifications",
  // kit: data
  "global.pagination.label": "Pagination",
  "global.pagination.apply": "Apply",
  "global.table.edit": "Edit",
} as const;

export type MessageKey = keyof typeof en | `error.${number}`;

const zh: Record<keyof typeof en, string> = {
  "global.tips": "提示",
  "global.cancel": "取消",
  "global.confirm": "确定",
  "global.confirm.delete": "删除",
  "global.search": "搜索",
  "global.reset": "重置",
  "global.all": "全部",
  "global.delete": "删除",
  "global.close": "关闭",
  "global.loading": "加载中",
  "global.no-data": "暂无数据",
  "global.field.required": "此项为必填项",
  "global.pagination.total": "共 {{total}} 条",
  "global.pagination.page": "{{size}} 条/页",
  "global.pagination.previous": "上一页",
  "global.pagination.next": "下一页",
  "global.pagination.goto": "第 {{page}} 页",
  "global.pagination.size": "每页条数",
  "global.table.select-all": "选择全部行",
  "global.table.select-row": "选择此行",
  "global.table.expand-row": "展开此行",
  "global.table.collapse-row": "收起此行",
  "global.table.sort": "按{{column}}排序",
  "global.server.error": "服务不可用：服务器过载或出现故障，请稍后再试。",
  "global.modal.logout": "登录已失效，请重新登录。",
  "global.error.unknown": "未知错误：{{code}}",
  "global.error.something-wrong": "出了点问题 [{{code}}]",
  // kit: basics
  // kit: overlays
  "global.toast.region": "通知",
  // kit: data
  "global.pagination.label": "分页",
  "global.pagination.apply": "应用",
  "global.table.edit": "编辑",
};

const errorMessages = (lang: "en" | "zh") => Object.fromEntries(errors.map((e) => [`error.${e.code}`, e[lang]]));

export const SUPPORTED_LANGUAGES = ["en", "zh"] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];
export const NAMESPACE = "common";

export const resources = {
  en: { [NAMESPACE]: { ...en, ...errorMessages("en") } },
  zh: { [NAMESPACE]: { ...zh, ...errorMessages("zh") } },
};
