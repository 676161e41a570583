/** The notification page (/notification). */
export const notificationsEn = {
  "notification.title": "Notifications",
  "notification.unread": "Unread",
  "notification.mark-read": "Mark as read",
  "notification.mark-all-read": "Mark all as read",
  "notification.empty": "No notifications",
} as const;

export const notificationsZh: Record<keyof typeof notificationsEn, string> = {
  "notification.title": "消息通知",
  "notification.unread": "未读",
  "notification.mark-read": "标为已读",
  "notification.mark-all-read": "全部标为已读",
  "notification.empty": "暂无通知",
};
