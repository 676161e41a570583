import { errors } from "../../contract/errors";
import type { ZhMessages } from "./plural";
import { adminEn, adminZh } from "./messages/admin";
import { adminAuthenticationEn, adminAuthenticationZh } from "./messages/admin-authentication";
import { adminEmailEn, adminEmailZh } from "./messages/admin-email";
import { adminGroupsEn, adminGroupsZh } from "./messages/admin-groups";
import { adminEventsEn, adminEventsZh } from "./messages/admin-events";
import { adminStorageEn, adminStorageZh } from "./messages/admin-storage";
import { adminAutoCleanEn, adminAutoCleanZh } from "./messages/admin-autoclean";
import { adminSyncEn, adminSyncZh } from "./messages/admin-sync";
import { adminNotificationsEn, adminNotificationsZh } from "./messages/admin-notifications";
import { adminLinksEn, adminLinksZh } from "./messages/admin-links";
import { adminSettingsEn, adminSettingsZh } from "./messages/admin-settings";
import { adminStatisticsEn, adminStatisticsZh } from "./messages/admin-statistics";
import { adminLogsEn, adminLogsZh } from "./messages/admin-logs";
import { adminTasksEn, adminTasksZh } from "./messages/admin-tasks";
import { adminP2pEn, adminP2pZh } from "./messages/admin-p2p";
import { adminTlsEn, adminTlsZh } from "./messages/admin-tls";
import { adminSiteEn, adminSiteZh } from "./messages/admin-site";
import { adminDatabaseEn, adminDatabaseZh } from "./messages/admin-database";
import { adminUsersEn, adminUsersZh } from "./messages/admin-users";
import { authEn, authZh } from "./messages/auth";
import { clientEn, clientZh } from "./messages/client";
import { dashboardEn, dashboardZh } from "./messages/dashboard";
import { filesEn, filesZh } from "./messages/files";
import { mailEn, mailZh } from "./messages/mail";
import { notificationsEn, notificationsZh } from "./messages/notifications";
import { p2pEn, p2pZh } from "./messages/p2p";
import { sharePageEn, sharePageZh } from "./messages/share-page";
import { shellEn, shellZh } from "./messages/shell";
import { sharesEn, sharesZh } from "./messages/shares";
import { transfersEn, transfersZh } from "./messages/transfers";

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
  "global.pagination.total_one": "Total {{count}} item",
  "global.pagination.total_other": "Total {{count}} items",
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
  "global.select.placeholder": "Please select",
  "global.steps.back": "Back",
  "global.steps.next": "Next",
  "global.steps.skip": "Skip",
  "global.steps.finish": "Finish",
  "global.steps.done": "done",
  "global.steps.position": "Step {{current}} of {{total}}:",
  "global.range.start": "Start date",
  "global.range.end": "End date",
  "global.error.title": "Something went wrong",
  "global.error.tip": "Sorry, this page ran into a problem. Refresh to try again.",
  "global.error.status": "Error code: {{status}}",
  "global.error.too-large.title": "What you sent is too large",
  "global.error.too-large": "This server accepts at most {{limit}} in one form. Go back, shorten what you entered and send it again.",
  "global.error.back": "Back to the page",
  "global.refresh": "Refresh",
  "global.error.home": "Go to the start page",
  "global.error.400.title": "This address is not valid",
  "global.error.400.tip": "Part of the address is malformed or was cut off. Open the link again from where you got it, or go to the start page.",
  "global.error.403.title": "You cannot open this page",
  "global.error.403.tip": "Your account or this browser is not allowed here. Sign in with another account, or ask your administrator for access.",
  "global.error.404.title": "Page not found",
  "global.error.404.tip": "Nothing is at this address: it may have been moved or deleted. Check the address, or go to the start page.",
  "global.error.500.title": "The server ran into a problem",
  "global.error.500.tip": "This is not your fault. Try again in a moment; if it keeps happening, tell your administrator.",
  "global.needs-javascript": "This page needs JavaScript. Turn JavaScript on in your browser and reload the page.",
  "app.notice.start-client": "Start the transfer client to upload and download at full speed.",
  "app.notice.start-client.button": "Start client",
  "app.notice.starting": "Starting the transfer client…",
  "app.notice.update": "A new version of the transfer client is available.",
  "app.notice.upgrade": "Upgrade",
  "app.notice.low-version": "Your transfer client is older than version {{version}}. Please upgrade it.",
  "app.notice.disconnect": "Disconnected from the server. Check your network or try again later.",
  // kit: overlays
  "global.toast.region": "Notifications",
  // kit: data
  "global.pagination.label": "Pagination",
  "global.pagination.apply": "Apply",
  "global.table.edit": "Edit",
} as const;

export type MessageKey = keyof typeof en | keyof typeof authEn | keyof typeof shellEn | keyof typeof adminEn | `error.${number}`;

const zh: ZhMessages<typeof en> = {
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
  "global.pagination.total_other": "共 {{count}} 条",
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
  "global.select.placeholder": "请选择",
  "global.steps.back": "上一步",
  "global.steps.next": "下一步",
  "global.steps.skip": "跳过",
  "global.steps.finish": "完成",
  "global.steps.done": "已完成",
  "global.steps.position": "第 {{current}} 步，共 {{total}} 步：",
  "global.range.start": "开始日期",
  "global.range.end": "结束日期",
  "global.error.title": "页面出错了",
  "global.error.tip": "抱歉，页面遇到了问题，请刷新后重试。",
  "global.error.status": "错误码：{{status}}",
  "global.error.too-large.title": "提交的内容过大",
  "global.error.too-large": "服务器每次最多接收 {{limit}} 的表单内容。请返回，缩短填写的内容后重新提交。",
  "global.error.back": "返回页面",
  "global.refresh": "刷新",
  "global.error.home": "前往首页",
  "global.error.400.title": "该地址无效",
  "global.error.400.tip": "地址的一部分格式有误或不完整。请从原处重新打开该链接，或前往首页。",
  "global.error.403.title": "您无法打开此页面",
  "global.error.403.tip": "您的账号或此浏览器无权访问此处。请使用其他账号登录，或联系管理员开通权限。",
  "global.error.404.title": "页面不存在",
  "global.error.404.tip": "此地址没有内容：它可能已被移动或删除。请检查地址，或前往首页。",
  "global.error.500.title": "服务器出现问题",
  "global.error.500.tip": "这不是您的操作问题。请稍后重试；如果问题持续出现，请联系管理员。",
  "global.needs-javascript": "此页面需要 JavaScript。请在浏览器中启用 JavaScript 后重新加载页面。",
  "app.notice.start-client": "请启动传输客户端，以全速上传和下载。",
  "app.notice.start-client.button": "启动客户端",
  "app.notice.starting": "正在启动传输客户端…",
  "app.notice.update": "传输客户端有新版本可用。",
  "app.notice.upgrade": "升级",
  "app.notice.low-version": "您的传输客户端版本低于 {{version}}，请升级。",
  "app.notice.disconnect": "与服务器的连接已断开，请检查网络或稍后重试。",
  // kit: overlays
  "global.toast.region": "通知",
  // kit: data
  "global.pagination.label": "分页",
  "global.pagination.apply": "应用",
  "global.table.edit": "编辑",
};

// A code's other wordings as i18next contexts: t("error.4340", { context: "server" }) reads `error.4340_server`.
const errorMessages = (lang: "en" | "zh") =>
  Object.fromEntries(errors.flatMap((e) => [[`error.${e.code}`, e[lang]], ...Object.entries(e.contexts ?? {}).map(([context, text]) => [`error.${e.code}_${context}`, text[lang]])]));

export const SUPPORTED_LANGUAGES = ["en", "zh"] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];
export const NAMESPACE = "common";

export const resources = {
  en: { [NAMESPACE]: { ...en, ...adminEn, ...adminGroupsEn, ...adminEventsEn, ...adminStorageEn, ...adminAutoCleanEn, ...adminSyncEn, ...adminEmailEn, ...adminNotificationsEn, ...adminLinksEn, ...adminStatisticsEn, ...adminLogsEn, ...adminTasksEn, ...adminP2pEn, ...adminSettingsEn, ...adminAuthenticationEn, ...adminUsersEn, ...adminTlsEn, ...adminSiteEn, ...adminDatabaseEn, ...authEn, ...clientEn, ...dashboardEn, ...filesEn, ...mailEn, ...notificationsEn, ...p2pEn, ...sharePageEn, ...shellEn, ...sharesEn, ...transfersEn, ...errorMessages("en") } },
  zh: { [NAMESPACE]: { ...zh, ...adminZh, ...adminGroupsZh, ...adminEventsZh, ...adminStorageZh, ...adminAutoCleanZh, ...adminSyncZh, ...adminEmailZh, ...adminNotificationsZh, ...adminLinksZh, ...adminStatisticsZh, ...adminLogsZh, ...adminTasksZh, ...adminP2pZh, ...adminSettingsZh, ...adminAuthenticationZh, ...adminUsersZh, ...adminTlsZh, ...adminSiteZh, ...adminDatabaseZh, ...authZh, ...clientZh, ...dashboardZh, ...filesZh, ...mailZh, ...notificationsZh, ...p2pZh, ...sharePageZh, ...shellZh, ...sharesZh, ...transfersZh, ...errorMessages("zh") } },
};
