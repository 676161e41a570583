import * as z from "zod";

export const noticeListQuery = z
  .object({
    pageNum: z.coerce.number().int().min(1).max(1_000_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(10),
  })
  .strict();

export const noticeItem = z.object({
  id: z.number().int(),
  title: z.string(),
  content: z.string(),
  create_time: z.number().int().describe("Unix seconds."),
  isShowed: z.boolean().describe("Read flag; false means unread."),
});

export const noticeListData = z.object({
  notic_list: z.array(noticeItem),
  total: z.number().int(),
  size: z.number().int(),
  current: z.number().int(),
  pages: z.number().int(),
  unreadCount: z.number().int(),
});

export const noticeStatusBody = z.object({ noticeIds: z.array(z.number().int().positive()).min(1).max(1000) }).strict();
export const noticeStatusData = z.object({ updated: z.number().int(), unreadCount: z.number().int() });

/** PATCH /api/notice/status/read-all: no body; every unread notification of the caller becomes read. */
export const noticeReadAllData = noticeStatusData;
