import * as z from "zod";
import { idParams, pageOf } from "../../contract/admin";
import { adminEvent, createEventBody, EVENT_PLACEHOLDERS, EVENT_TYPES, eventListQuery, eventRun, eventRunsQuery, eventStatusBody, eventTestData, updateEventBody } from "../../contract/events";
import { nullData, route } from "../http/route";
import type { Events } from "./service";

const eventsInfo = z.object({
  binDir: z.string().nullable().describe("The events directory (FERRY_EVENT_BIN_DIR); null: not set, events cannot be saved."),
  types: z.array(z.enum(EVENT_TYPES)),
  placeholders: z.array(z.enum(EVENT_PLACEHOLDERS)),
});

/** The administrator API of events (docs/admin-api.md, "Events"; docs/events.md). */
export function eventRoutes(events: Events) {
  return [
    route({
      method: "GET",
      url: "/api/admin/events/info",
      tag: "admin",
      summary: "The events directory executables must be in, the types and the placeholders.",
      auth: "admin",
      response: eventsInfo,
      handler: async () => ({ binDir: events.binDir, types: [...EVENT_TYPES], placeholders: [...EVENT_PLACEHOLDERS] }),
    }),
    route({ method: "GET", url: "/api/admin/events", tag: "admin", summary: "List events (search name, remark, executable; filter type, status), oldest first.", auth: "admin", query: eventListQuery, response: pageOf(adminEvent), handler: ({ query }) => events.list(query) }),
    route({
      method: "POST",
      url: "/api/admin/events",
      tag: "admin",
      summary: "Create an event. 4147 duplicate name, 4145 unknown operation, 4600 no events directory, 4601 executable outside it, 4602 command line not splittable.",
      auth: "admin",
      body: createEventBody,
      response: adminEvent,
      handler: ({ body }) => events.create(body),
    }),
    route({ method: "GET", url: "/api/admin/events/:id", tag: "admin", summary: "One event. 4146 unknown id.", auth: "admin", params: idParams, response: adminEvent, handler: ({ params }) => events.get(params.id) }),
    route({
      method: "PATCH",
      url: "/api/admin/events/:id",
      tag: "admin",
      summary: "Change an event (the executable and the command line are checked again). Codes as create, 4146 unknown id.",
      auth: "admin",
      params: idParams,
      body: updateEventBody,
      response: adminEvent,
      handler: ({ params, body }) => events.update(params.id, body),
    }),
    route({ method: "PUT", url: "/api/admin/events/:id/status", tag: "admin", summary: "Activate or deactivate an event.", auth: "admin", params: idParams, body: eventStatusBody, response: adminEvent, handler: ({ params, body }) => events.setStatus(params.id, body.status) }),
    route({
      method: "DELETE",
      url: "/api/admin/events/:id",
      tag: "admin",
      summary: "Delete an event and its run log.",
      auth: "admin",
      params: idParams,
      response: nullData,
      handler: async ({ params }) => {
        await events.remove(params.id);
        return null;
      },
    }),
    route({
      method: "POST",
      url: "/api/admin/events/:id/test",
      tag: "admin",
      summary: "Run the event now with sample values and wait for it: the run (exit code, output). 4144 with the run as data when it did not exit 0 in time.",
      auth: "admin",
      params: idParams,
      response: eventTestData,
      handler: ({ params }) => events.test(params.id),
    }),
    route({ method: "GET", url: "/api/admin/events/:id/runs", tag: "admin", summary: "The event's run log, newest first.", auth: "admin", params: idParams, query: eventRunsQuery, response: pageOf(eventRun), handler: ({ params, query }) => events.runs(params.id, query) }),
  ];
}
