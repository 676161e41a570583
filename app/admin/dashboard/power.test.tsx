import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { DashboardStatus } from "../../../contract/dashboard";
import { renderWithI18n } from "../../test-utils";
import { Outcome, powerPhase, saysUnreachable } from "./power";

const status = (over: Partial<DashboardStatus> = {}): DashboardStatus => ({ state: "running", startedAt: 1000, uptime: 5, pid: 42, canRestart: true, ...over });

describe("the dashboard's restart and shutdown", () => {
  it("show restarting until the engine answers running with another start time, then running", () => {
    const asked = { intent: "restart" as const, status: status({ state: "restarting" }) };
    expect(powerPhase(undefined, false, status())).toEqual({ phase: "idle", state: "running" });
    // The old process still answers, or nothing answers: still restarting.
    expect(powerPhase(asked, false, status())).toEqual({ phase: "restarting", state: "restarting" });
    expect(powerPhase(asked, true, status())).toEqual({ phase: "restarting", state: "restarting" });
    expect(powerPhase(asked, false, status({ startedAt: 2000, state: "starting" }))).toEqual({ phase: "restarting", state: "restarting" });
    expect(powerPhase(asked, false, status({ startedAt: 2000 }))).toEqual({ phase: "restarted", state: "running" });
    // The new engine answered running, then went silent: the restart is over, and that is an error.
    expect(powerPhase(asked, true, status({ startedAt: 2000 }))).toEqual({ phase: "restarted", state: "error" });
  });

  it("show shutting down after a shutdown, and an engine that does not answer as error", () => {
    expect(powerPhase({ intent: "shutdown", status: status({ state: "shuttingDown" }) }, true, status())).toEqual({ phase: "shuttingDown", state: "shuttingDown" });
    expect(powerPhase(undefined, true, status())).toEqual({ phase: "idle", state: "error" });
    // A refusal changes nothing.
    expect(powerPhase({ intent: "restart", code: 4109 }, false, status())).toEqual({ phase: "idle", state: "running" });
  });

  it("say the engine does not answer only when nobody asked it to stop", () => {
    expect(saysUnreachable("idle", true)).toBe(true);
    expect(saysUnreachable("restarted", true)).toBe(true);
    // A restart under way and a shutdown say so themselves; a red "does not answer" beside them is noise.
    expect(saysUnreachable("restarting", true)).toBe(false);
    expect(saysUnreachable("shuttingDown", true)).toBe(false);
    expect(saysUnreachable("idle", false)).toBe(false);
  });

  it("say the engine's refusal in the page's language", () => {
    renderWithI18n(<Outcome result={{ intent: "restart", code: 4109 }} phase="idle" hydrated />);
    expect(screen.getByRole("alert").textContent).toBe("Refused: This feature is not supported");
    renderWithI18n(<Outcome result={{ intent: "shutdown", code: 4109 }} phase="idle" hydrated />, { lang: "zh" });
    expect(screen.getAllByRole("alert")[1]!.textContent).toBe("已拒绝：不支持该功能");
  });

  it("say the page will stop answering after a shutdown, and when Ferry runs again after a restart", () => {
    renderWithI18n(<Outcome result={undefined} phase="shuttingDown" hydrated />);
    expect(screen.getByRole("status").textContent).toContain("This page will stop answering");
    renderWithI18n(<Outcome result={undefined} phase="restarted" hydrated />);
    expect(screen.getAllByRole("status")[1]!.textContent).toBe("Ferry is running again.");
  });
});
